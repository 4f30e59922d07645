/**
 * CPU time of one thread of this process (docs/architecture.md "Decode budget"): what the decode
 * budget counts, so that a loaded machine — where a thread waits for a core for most of the wall
 * time — does not park a good message. Read from /proc/self/task/<tid>/stat (Linux: utime + stime
 * in clock ticks of 1/100 s); node 20 has no per-thread CPU clock of its own (process.cpuUsage
 * counts every thread). Where /proc is missing, the answers are undefined and the budget is wall time.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** Linux's USER_HZ: the unit of utime and stime in /proc (100 on every architecture node runs on). */
const TICKS_PER_SECOND = 100;

/** The calling thread's id in /proc (`/proc/thread-self` → `<pid>/task/<tid>`), or undefined. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** User + system CPU milliseconds thread `tid` of this process has used, or undefined (no /proc, thread gone). */
export function threadCpuMs(tid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? ((utime + stime) * 1000) / TICKS_PER_SECOND : undefined;
}

/** The calling thread's CPU clock in milliseconds (each call reads /proc: ~20–70 µs), or undefined without /proc. */
export function threadCpuClock(): (() => number) | undefined {
  const tid = currentThreadId();
  if (tid === undefined || threadCpuMs(tid) === undefined) return undefined;
  let last = 0;
  // The thread is this one, so it cannot be gone; keep the last reading should /proc fail anyway.
  return () => (last = threadCpuMs(tid) ?? last);
}
