/**
 * The schd loop first (docs/delivery.md "Which target first"): a worker wrapped by foregroundWorker
 * holds its foreground while its steps keep delivering, and lets go when one finds nothing due or
 * fails, so the loops behind it (KAFKA_MSG, AIDX) wait only while schd batches go out.
 */
import { describe, expect, it } from 'vitest';
import { IDLE, WORKED, type StepResult } from '../../../src/write/delivery/deliverRows.ts';
import { foregroundWorker } from '../../../src/write/delivery/targetPriority.ts';
import { createForeground, nextTurn } from '../../../src/platform/slicing.ts';

/** Whether `fg.idle()` resolves within a few turns of the event loop (its own wait is a minute: never reached here). */
async function idleNow(fg: ReturnType<typeof createForeground>): Promise<boolean> {
  let done = false;
  const waiting = fg.idle().then(() => {
    done = true;
  });
  for (let i = 0; i < 5 && !done; i++) await nextTurn();
  void waiting;
  return done;
}

describe('foregroundWorker', () => {
  it('holds the foreground from its first step while steps deliver, and lets go at an idle step, a wait or a failure', async () => {
    const fg = createForeground(60_000);
    const results: (StepResult | Error)[] = [WORKED, WORKED, IDLE, { kind: 'wait', until: new Date(0) }, WORKED, new Error('database down'), WORKED];
    const seen: boolean[] = [];
    const worker = foregroundWorker({
      target: 'KAFKA_SCHD',
      async step() {
        seen.push(await idleNow(fg)); // inside its step, the foreground is held
        const r = results.shift()!;
        if (r instanceof Error) throw r;
        return r;
      },
    }, fg);
    expect(worker.target).toBe('KAFKA_SCHD');
    await worker.step();
    expect(await idleNow(fg)).toBe(false); // delivered: still held for the next step
    await worker.step();
    expect(await idleNow(fg)).toBe(false);
    await worker.step(); // idle: let go
    expect(await idleNow(fg)).toBe(true);
    await worker.step(); // a wait (backoff): let go
    expect(await idleNow(fg)).toBe(true);
    await worker.step();
    expect(await idleNow(fg)).toBe(false);
    await expect(worker.step()).rejects.toThrow('database down'); // a failure: let go
    expect(await idleNow(fg)).toBe(true);
    expect(seen).toEqual([false, false, false, false, false, false]);
  });
});
