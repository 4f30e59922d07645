import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Latch } from '../pump/wakeup.ts';
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
 * poll comes round, or the latch fires (LISTEN msgx_outbox). Returns once `stop` is aborted.
 */
export async function runTargetLoop(worker: TargetWorker, latch: Latch, stop: AbortSignal, opts: TargetLoopOptions): Promise<void> {
  let errors = 0;
  while (!stop.aborted) {
    latch.arm();
    let result: StepResult;
    try {
      result = await worker.step();
      if (errors > 0) opts.log.info({ target: worker.target, failedSteps: errors }, 'dispatcher resumed');
      errors = 0;
    } catch (err) {
      // Once per outage, not once per step.
      if (errors++ === 0) opts.log.error({ err, target: worker.target }, 'dispatcher step failed; will retry');
      else opts.log.debug({ err, target: worker.target }, 'dispatcher step failed again');
      result = { kind: 'wait', until: new Date(opts.clock.now().getTime() + opts.errorPauseMs) };
    }
    if (result.kind === 'worked') continue;
    const ms = result.kind === 'idle' ? opts.idlePollMs : result.until.getTime() - opts.clock.now().getTime();
    await latch.wait(opts.clock, ms, stop);
  }
}
