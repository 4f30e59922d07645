import type { Clock } from './clock.ts';

/**
 * Waits until `settled` resolves, `maxMs` have passed, or `signal` aborts, whichever comes first;
 * never throws (a `settled` that fails counts as settled). Work that must not share the CPU with
 * the first decisions after a start or a takeover waits for this with "what waited at the start is
 * decided" (docs/operations.md "Sentinel" and "Jobs").
 */
export async function untilSettled(settled: () => Promise<void>, clock: Clock, maxMs: number, signal: AbortSignal): Promise<void> {
  const deferred = new AbortController();
  const cancel = (): void => deferred.abort();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    await Promise.race([settled().catch(() => undefined), clock.sleep(maxMs, deferred.signal)]);
  } finally {
    signal.removeEventListener('abort', cancel);
    deferred.abort();
  }
}
