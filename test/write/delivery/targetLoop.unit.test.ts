import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.ts';
import { IDLE, type StepResult } from '../../../src/write/delivery/deliverRows.ts';
import { runTargetLoop } from '../../../src/write/delivery/targetLoop.ts';
import { Wakeup } from '../../../src/platform/wakeup.ts';
import { createForeground, nextTurn } from '../../../src/platform/slicing.ts';
import { captureLog } from '../../reliability/support/captureLog.ts';
import { waitFor } from '../../support/waitFor.ts';

describe('dispatcher target loop', () => {
  it('says once that its steps fail (not once a second through an outage), and once that it resumed', async () => {
    const clock = new FakeClock();
    const captured = captureLog('info');
    let steps = 0;
    const stop = new AbortController();
    const worker = {
      target: 'KAFKA_MSG' as const,
      async step(): Promise<StepResult> {
        steps++;
        if (steps <= 5) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return IDLE;
      },
    };
    const loop = runTargetLoop(worker, new Wakeup(), stop.signal, { clock, log: captured.log, idlePollMs: 60_000, errorPauseMs: 1000 });
    // Each failed step waits errorPauseMs on the clock: move it on until the sixth step has run.
    await waitFor(() => {
      if (steps < 6) clock.advance(1000);
      return steps >= 6;
    });
    stop.abort();
    await loop;
    const messages = captured.text().trim().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toEqual(['dispatcher step failed; will retry', 'dispatcher resumed']);
  });

  it('takes no step while the pump works on a big head, and steps again when it is done (src/platform/slicing.ts Foreground)', async () => {
    const clock = new FakeClock();
    const captured = captureLog('info');
    const foreground = createForeground(60_000);
    let steps = 0;
    const stop = new AbortController();
    const worker = { target: 'KAFKA_MSG' as const, async step(): Promise<StepResult> { steps++; return IDLE; } };
    const endBigHead = foreground.enter();
    const wakeup = new Wakeup();
    const loop = runTargetLoop(worker, wakeup, stop.signal, { clock, log: captured.log, idlePollMs: 60_000, errorPauseMs: 1000, gate: () => foreground.idle() });
    for (let i = 0; i < 10; i++) await nextTurn();
    expect(steps).toBe(0);
    endBigHead();
    await waitFor(() => steps === 1);
    stop.abort();
    wakeup.notify();
    await loop;
  });
});

