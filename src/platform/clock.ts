/** The only source of "now" outside tests. Production uses systemClock; tests inject a FakeClock. */
export interface Clock {
  now(): Date;
  /** Resolve after `ms` of this clock's time (a fake clock resolves when advanced). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(done, Math.max(0, ms));
      function done() {
        signal?.removeEventListener('abort', done);
        clearTimeout(t);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** A clock that only moves when told to. Sleepers wake when `advance` passes their deadline. */
export class FakeClock implements Clock {
  private t: number;
  private sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start: Date | string = '2025-03-14T00:00:00Z') {
    this.t = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.t);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      // Like setTimeout: a sleep that is already due (ms <= 0) ends at once, not on the next advance.
      if (signal?.aborted || ms <= 0) return resolve();
      const entry = { until: this.t + ms, resolve };
      this.sleepers.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          this.sleepers = this.sleepers.filter((s) => s !== entry);
          resolve();
        },
        { once: true },
      );
    });
  }

  advance(ms: number): void {
    this.t += ms;
    const due = this.sleepers.filter((s) => s.until <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.until > this.t);
    for (const s of due) s.resolve();
  }

  set(to: Date | string): void {
    const target = new Date(to).getTime();
    if (target > this.t) this.advance(target - this.t);
    else this.t = target;
  }

  get pendingSleepers(): number {
    return this.sleepers.length;
  }
}
