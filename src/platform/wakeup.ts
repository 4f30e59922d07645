/**
 * The one wake-up primitive of the service loops (pump, projectors, dispatcher targets, backfill,
 * request tracker). `notify()` bumps a generation; a loop reads `generation` before it looks for
 * work and then `wait(seen, …)`s: that returns at once when a notification came meanwhile, so a
 * wake-up that arrives while the loop is busy is never lost, and nothing spins.
 */
import type { Clock } from './clock.ts';

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

  /**
   * Resolve on the first notify after generation `since` (at once if there was one), after
   * `timeoutMs` of `clock` (at once when ≤ 0), or on abort. The clock's timer is always released.
   */
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
      await Promise.race([woken, clock.sleep(Math.max(0, timeoutMs), stopTimer.signal)]);
    } finally {
      this.waiters.delete(wake);
      signal.removeEventListener('abort', onAbort);
      stopTimer.abort(); // releases the clock's sleeper
    }
  }
}
