import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { Wakeup } from '../../src/platform/wakeup.ts';

describe('FakeClock', () => {
  it('ends a sleep that is already due at once, as setTimeout does, instead of on the next advance', async () => {
    const clock = new FakeClock();
    await clock.sleep(0);
    await clock.sleep(-5);
    expect(clock.pendingSleepers).toBe(0);
  });

  it('a loop whose deadline the clock passed while it was looking does not wait for another advance', async () => {
    // The delivery loop computes "until - now" after its step; a test that advanced the clock during
    // the step leaves 0 ms. That wait must end now (this once hung ndjsonSink.int.test.ts in CI).
    const clock = new FakeClock();
    const until = clock.now().getTime() + 3000;
    clock.advance(3000);
    const wakeup = new Wakeup();
    await wakeup.wait(wakeup.generation, until - clock.now().getTime(), clock, new AbortController().signal);
    expect(clock.pendingSleepers).toBe(0);
  });

  it('wakes a sleeper only when advance passes its deadline', async () => {
    const clock = new FakeClock();
    let done = false;
    const sleeping = clock.sleep(100).then(() => (done = true));
    clock.advance(99);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await sleeping;
    expect(done).toBe(true);
  });
});
