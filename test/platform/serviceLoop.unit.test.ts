/**
 * The one service loop (src/platform/serviceLoop.ts): waits as long as the step asks or until
 * woken, retries a failing step after retryMs(failures in a row), and says a failure streak once.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { createServiceLoop } from '../../src/platform/serviceLoop.ts';
import { captureLog } from '../reliability/support/captureLog.ts';
import { waitFor } from '../support/waitFor.ts';

describe('createServiceLoop', () => {
  it('logs a failure streak once and its end once, backing off by the streak length', async () => {
    const clock = new FakeClock();
    const captured = captureLog('info');
    const retries: number[] = [];
    let steps = 0;
    const loop = createServiceLoop({
      clock, log: captured.log, failedMsg: 'step failed', resumedMsg: 'step resumed',
      async step() {
        steps += 1;
        if (steps <= 3) throw new Error('down');
        return 60_000;
      },
      retryMs: (n) => { retries.push(n); return n * 100; },
    });
    loop.start();
    try {
      for (const [after, wait] of [[1, 100], [2, 200], [3, 300]] as const) {
        await waitFor(() => steps === after && clock.pendingSleepers === 1, { what: `step ${after} waiting` });
        clock.advance(wait - 1);
        await Promise.resolve();
        expect(steps).toBe(after); // not before its retry delay
        clock.advance(1);
      }
      await waitFor(() => steps === 4 && clock.pendingSleepers === 1, { what: 'the good step waiting' });
    } finally {
      await loop.stop();
    }
    expect(retries).toEqual([1, 2, 3]);
    const msgs = captured.text().trim().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs).toEqual(['step failed', 'step resumed']);
  });

  it('goes again at once on 0, wakes early on wake(), calls beforeWait before each wait, and stops', async () => {
    const clock = new FakeClock();
    const answers = [0, 0, 60_000, 60_000];
    let steps = 0;
    let waits = 0;
    const loop = createServiceLoop({
      clock, log: captureLog('info').log, failedMsg: 'x',
      step: async () => answers[Math.min(steps++, answers.length - 1)]!,
      retryMs: () => 1000,
      beforeWait: () => void waits++,
    });
    loop.start();
    await waitFor(() => steps === 3 && clock.pendingSleepers === 1, { what: 'three steps, then a wait' });
    expect(waits).toBe(1);
    loop.wake();
    await waitFor(() => steps === 4 && clock.pendingSleepers === 1, { what: 'woken without the clock moving' });
    expect(waits).toBe(2);
    await loop.stop();
    expect(clock.pendingSleepers).toBe(0);
    expect(steps).toBe(4);
  });
});
