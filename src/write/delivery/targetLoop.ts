import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import { runServiceLoop } from '../../platform/serviceLoop.ts';
import type { Wakeup } from '../../platform/wakeup.ts';
import type { TargetWorker } from './deliverRows.ts';

export interface TargetLoopOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** With nothing to do, look again after this long even without a notification. */
  readonly idlePollMs: number;
  /** After a database error inside a step, try again after this long. */
  readonly errorPauseMs: number;
  /** Awaited before each step (a writer's deliveries give way to the pump's big head: src/platform/slicing.ts Foreground). */
  readonly gate?: () => Promise<void>;
}

/**
 * Run one target: step while there is work; otherwise sleep until the head is due, the idle
 * poll comes round, or `wakeup` is notified (LISTEN msgx_outbox). Returns once `stop` is aborted.
 */
export async function runTargetLoop(worker: TargetWorker, wakeup: Wakeup, stop: AbortSignal, opts: TargetLoopOptions): Promise<void> {
  await runServiceLoop(
    {
      clock: opts.clock,
      log: opts.log.child({ target: worker.target }),
      failedMsg: 'dispatcher step failed; will retry',
      resumedMsg: 'dispatcher resumed',
      wakeup,
      async step() {
        await opts.gate?.();
        const result = await worker.step();
        if (result.kind === 'worked') return 0;
        return result.kind === 'idle' ? opts.idlePollMs : result.until.getTime() - opts.clock.now().getTime();
      },
      retryMs: () => opts.errorPauseMs,
    },
    stop,
  );
}
