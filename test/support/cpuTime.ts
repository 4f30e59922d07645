/**
 * How much of this process's CPU a synchronous call takes (user + system, ms). Tests that bound a
 * cost (a linear pass, a refusal before parsing) use it instead of wall time: a loaded machine
 * (CI's shared 2 cores) stretches wall time many times over, but not the CPU the work needs.
 */
export function cpuTimed<T>(fn: () => T): { value: T; ms: number } {
  const started = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(started);
  return { value, ms: (used.user + used.system) / 1000 };
}
