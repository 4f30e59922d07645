import type { Clock } from './clock.ts';

/**
 * How long work held back at a start waits at most for `settled`: a backlog that takes longer is
 * worked beside it (the sentinel's start check, the housekeeping job's first run).
 */
export const START_SETTLE_MAX_MS = 60_000;

/**
 * Waits until `settled` resolves, START_SETTLE_MAX_MS have passed, or `signal` aborts, whichever
 * comes first; never throws (a `settled` that fails counts as settled). Work that must not share
 * the CPU with the first decisions after a start or a takeover waits for this with "what waited at
 * the start is decided" (docs/operations.md "Sentinel" and "Jobs").
 */
export async function untilSettled(settled: () => Promise<void>, clock: Clock, signal: AbortSignal): Promise<void> {
  const deferred = new AbortController();
  const cancel = (): void => deferred.abort();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    await Promise.race([settled().catch(() => undefined), clock.sleep(START_SETTLE_MAX_MS, deferred.signal)]);
  } finally {
    signal.removeEventListener('abort', cancel);
    deferred.abort();
  }
}
