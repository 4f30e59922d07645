/**
 * Start the fuzz worker (fuzzWorker.ts, loaded through tsx like bin/msgx.js does) and collect its
 * family reports. A watchdog ends the worker when no case finished for `stallMs`: a hang becomes
 * a failing report naming the family and seed, instead of a test run that never ends.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { FamilyReport, FuzzWorkerInput } from './fuzzWorker.ts';

export interface FuzzRun {
  readonly reports: readonly FamilyReport[];
  /** Set when the watchdog stopped a stalled worker or the worker died. */
  readonly aborted: string | null;
}

export async function runFuzzWorker(input: Omit<FuzzWorkerInput, 'heartbeat'>, stallMs: number): Promise<FuzzRun> {
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const entry = new URL('./fuzzWorker.ts', import.meta.url).href;
  const boot = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(entry)});`;
  const heartbeat = new SharedArrayBuffer(4);
  const beats = new Int32Array(heartbeat);
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData: { ...input, heartbeat } });
  const reports: FamilyReport[] = [];
  return new Promise<FuzzRun>((resolve) => {
    let last = -1;
    let lastChange = Date.now();
    let finished = false;
    const finish = (aborted: string | null): void => {
      if (finished) return;
      finished = true;
      clearInterval(watchdog);
      void worker.terminate().then(() => resolve({ reports, aborted }));
    };
    const watchdog = setInterval(() => {
      const now = Atomics.load(beats, 0);
      if (now !== last) {
        last = now;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > stallMs) {
        finish(`no case finished for ${stallMs} ms after ${now} cases (in the family after ${reports.at(-1)?.family ?? 'none'}; seed ${input.seed})`);
      }
    }, 250);
    worker.on('message', (m: FamilyReport | 'done') => (m === 'done' ? finish(null) : reports.push(m)));
    worker.on('error', (err) => finish(`worker died: ${err.stack ?? err.message}`));
    worker.on('exit', (code) => finish(code === 0 ? null : `worker exited with code ${code}`));
  });
}
