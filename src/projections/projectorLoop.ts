/**
 * The loop that runs one projector: apply batches while there are events, then wait for a wake-up
 * (msgx_decision via the shared listener) or the polling interval of the injected clock. Errors are
 * logged once per outage and retried after the polling interval; a batch never half-applies.
 */
import { FailureStreak } from '../platform/failureStreak.ts';
import type { Clock } from '../platform/clock.ts';
import type { Pool } from '../platform/db.ts';
import type { Faults } from '../platform/faults.ts';
import type { Logger } from '../platform/logger.ts';
import type { Service } from '../platform/service.ts';
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
  const stop = new AbortController();
  let loop: Promise<void> | undefined;
  let last: BatchOutcome | undefined;
  const failures = new FailureStreak(log, 'projector batch failed; retrying', 'projector recovered');

  async function step(): Promise<'more' | 'wait'> {
    try {
      last = await runBatch(pool, projector, { batchSize, clock, faults: opts.faults });
      failures.succeeded();
      if (last.kind === 'conflict') {
        log.info('checkpoint moved by another instance; re-reading');
        return 'more';
      }
      return last.kind === 'applied' ? 'more' : 'wait';
    } catch (err) {
      failures.failed(err);
      return 'wait';
    }
  }

  async function run(): Promise<void> {
    while (!stop.signal.aborted) {
      const seen = wakeup.generation;
      const next = await step();
      if (next === 'wait' && !stop.signal.aborted) await wakeup.wait(seen, opts.pollIntervalMs, clock, stop.signal);
    }
  }

  return {
    name: `projector:${projector.name}`,
    lastOutcome: () => last,
    async start() {
      if (loop) return;
      await ensureCheckpoint(pool, projector.name);
      loop = run();
    },
    async stop() {
      stop.abort();
      await loop;
    },
  };
}
