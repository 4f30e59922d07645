import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { Wakeup } from '../../src/platform/wakeup.ts';

describe('Wakeup', () => {
  it('returns at once when a notification came after the generation the caller saw', async () => {
    const w = new Wakeup();
    const seen = w.generation;
    w.notify();
    const clock = new FakeClock();
    await w.wait(seen, 1000, clock, new AbortController().signal);
    expect(clock.pendingSleepers).toBe(0);
  });

  it('wakes on notify and releases its timer', async () => {
    const w = new Wakeup();
    const clock = new FakeClock();
    const waiting = w.wait(w.generation, 1000, clock, new AbortController().signal);
    expect(clock.pendingSleepers).toBe(1);
    w.notify();
    await waiting;
    expect(clock.pendingSleepers).toBe(0);
  });

  it('wakes when the clock passes the timeout, and on abort', async () => {
    const w = new Wakeup();
    const clock = new FakeClock();
    let done = false;
    const waiting = w.wait(w.generation, 1000, clock, new AbortController().signal).then(() => (done = true));
    clock.advance(999);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await waiting;
    const abort = new AbortController();
    const aborted = w.wait(w.generation, 1000, clock, abort.signal);
    abort.abort();
    await aborted;
    expect(clock.pendingSleepers).toBe(0);
  });
});
