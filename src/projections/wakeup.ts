/**
 * A wake-up signal for loops that otherwise wait for a polling interval. `notify` bumps a
 * generation; `wait(since, …)` returns at once when the generation moved past `since`, so a
 * notification that arrives while the loop is busy is never lost.
 */
import type { Clock } from '../platform/clock.ts';

export class Wakeup {
  private gen = 0;
  private waiters = new Set<() => void>();

  get generation(): number {
    return this.gen;
  }

  notify(): void {
    this.gen += 1;
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }

  /** Resolve on the next notify after generation `since`, after `timeoutMs` of `clock`, or on abort. */
  async wait(since: number, timeoutMs: number, clock: Clock, signal: AbortSignal): Promise<void> {
    if (this.gen !== since || signal.aborted) return;
    const stopTimer = new AbortController();
    const onAbort = () => stopTimer.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
      this.waiters.add(resolve);
    });
    try {
      await Promise.race([woken, clock.sleep(timeoutMs, stopTimer.signal)]);
    } finally {
      this.waiters.delete(wake);
      signal.removeEventListener('abort', onAbort);
      stopTimer.abort(); // releases the clock's sleeper
    }
  }
}
