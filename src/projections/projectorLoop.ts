/**
 * The loop that runs one projector: apply batches while there are events, then wait for a wake-up
 * (msgx_decision via the shared listener) or the polling interval of the injected clock (the
 * platform's service loop: errors logged once per streak and retried after the polling interval);
 * a batch never half-applies.
 */
import type { Clock } from '../platform/clock.ts';
import type { Pool } from '../platform/db.ts';
import type { Faults } from '../platform/faults.ts';
import type { Logger } from '../platform/logger.ts';
import type { Service } from '../platform/service.ts';
import { createServiceLoop } from '../platform/serviceLoop.ts';
import { ensureCheckpoint } from './checkpoint.ts';
import type { Projector } from './projector.ts';
import { runBatch, type BatchOutcome } from './runBatch.ts';
import type { Wakeup } from '../platform/wakeup.ts';

export interface ProjectorLoopOptions {
  pool: Pool;
  projector: Projector;
  wakeup: Wakeup;
  clock: Clock;
  log: Logger;
  /** Polling fallback (and retry delay after an error), in clock milliseconds. */
  pollIntervalMs: number;
  batchSize?: number;
  /** The fault port at the batch's crash points (default none). */
  faults?: Faults;
}

export const DEFAULT_BATCH_SIZE = 500;

export interface ProjectorLoop extends Service {
  /** Outcome of the last batch (for tests and diagnostics). */
  lastOutcome(): BatchOutcome | undefined;
}

export function createProjectorLoop(opts: ProjectorLoopOptions): ProjectorLoop {
  const { pool, projector, wakeup, clock, log } = opts;
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  let last: BatchOutcome | undefined;
  let started = false;
  const loop = createServiceLoop({
    clock,
    log,
    failedMsg: 'projector batch failed; retrying',
    resumedMsg: 'projector recovered',
    wakeup,
    async step() {
      last = await runBatch(pool, projector, { batchSize, clock, faults: opts.faults });
      if (last.kind === 'conflict') log.info('checkpoint moved by another instance; re-reading');
      return last.kind === 'idle' ? opts.pollIntervalMs : 0;
    },
    retryMs: () => opts.pollIntervalMs,
  });

  return {
    name: `projector:${projector.name}`,
    lastOutcome: () => last,
    async start() {
      if (started) return;
      started = true;
      await ensureCheckpoint(pool, projector.name);
      loop.start();
    },
    stop: () => loop.stop(),
  };
}
