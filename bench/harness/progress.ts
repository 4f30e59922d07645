/** Progress lines for the person running the bench (stderr, so stdout stays the table). */
const started = performance.now();

export function progress(message: string): void {
  const s = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${s}s] ${message}\n`);
}
