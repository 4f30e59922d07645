import { FailureStreak } from '../../platform/failureStreak.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Wakeup } from '../../platform/wakeup.ts';
import type { StepResult, TargetWorker } from './deliverRows.ts';

export interface TargetLoopOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** With nothing to do, look again after this long even without a notification. */
  readonly idlePollMs: number;
  /** After a database error inside a step, try again after this long. */
  readonly errorPauseMs: number;
}

/**
 * Run one target: step while there is work; otherwise sleep until the head is due, the idle
 * poll comes round, or `wakeup` is notified (LISTEN msgx_outbox). Returns once `stop` is aborted.
 */
export async function runTargetLoop(worker: TargetWorker, wakeup: Wakeup, stop: AbortSignal, opts: TargetLoopOptions): Promise<void> {
  const failures = new FailureStreak(opts.log.child({ target: worker.target }), 'dispatcher step failed; will retry', 'dispatcher resumed');
  while (!stop.aborted) {
    const seen = wakeup.generation;
    let result: StepResult;
    try {
      result = await worker.step();
      failures.succeeded();
    } catch (err) {
      failures.failed(err);
      result = { kind: 'wait', until: new Date(opts.clock.now().getTime() + opts.errorPauseMs) };
    }
    if (result.kind === 'worked') continue;
    const ms = result.kind === 'idle' ? opts.idlePollMs : result.until.getTime() - opts.clock.now().getTime();
    await wakeup.wait(seen, ms, opts.clock, stop);
  }
}
