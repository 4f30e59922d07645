import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { START_SETTLE_MAX_MS, untilSettled } from '../../src/platform/untilSettled.ts';

/** A promise and its resolve/reject, for `settled` functions the test finishes by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Whether `p` has settled after the pending callbacks ran. */
async function isDone(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('untilSettled: wait for what waited at the start, bounded', () => {
  it('ends when settled resolves, and leaves no timer behind', async () => {
    const clock = new FakeClock();
    const d = deferred();
    const wait = untilSettled(() => d.promise, clock, new AbortController().signal);
    expect(await isDone(wait)).toBe(false);
    d.resolve();
    expect(await isDone(wait)).toBe(true);
    expect(clock.pendingSleepers).toBe(0);
  });

  it('ends after START_SETTLE_MAX_MS of the clock when settled never comes', async () => {
    const clock = new FakeClock();
    const wait = untilSettled(() => new Promise<void>(() => undefined), clock, new AbortController().signal);
    clock.advance(START_SETTLE_MAX_MS - 1);
    expect(await isDone(wait)).toBe(false);
    clock.advance(1);
    expect(await isDone(wait)).toBe(true);
  });

  it('ends at once when the signal aborts (a stop during the wait)', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const wait = untilSettled(() => new Promise<void>(() => undefined), clock, stop.signal);
    expect(await isDone(wait)).toBe(false);
    stop.abort();
    expect(await isDone(wait)).toBe(true);
    expect(clock.pendingSleepers).toBe(0);
  });

  it('counts a settled that fails as settled, without throwing', async () => {
    const clock = new FakeClock();
    const d = deferred();
    const wait = untilSettled(() => d.promise, clock, new AbortController().signal);
    d.reject(new Error('pump stopped'));
    await expect(wait).resolves.toBeUndefined();
  });
});
