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
import type { ReadinessCheck, Service } from '../platform/service.ts';
import { createStallWatch } from '../platform/stallWatch.ts';
import { createServiceLoop } from '../platform/serviceLoop.ts';
import { ensureCheckpoint, readCheckpoint } from './checkpoint.ts';
import type { Projector } from './projector.ts';
import type { ReadDecisions } from './sharedReads.ts';
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
  /**
   * MSGX_HEAD_STALL_READY_MS: the readiness check turns not ready while decisions wait and the
   * checkpoint has not moved for this long (docs/operations.md "Stalled heads"; default 0: off).
   */
  stallReadyMs?: number;
  /** How batches are read (default: straight from the log; the writer's projectors share reads, sharedReads.ts). */
  read?: ReadDecisions;
  /** Awaited before each batch (a writer's projectors give way to the pump's big head: src/platform/slicing.ts Foreground). */
  gate?: () => Promise<void>;
}

export const DEFAULT_BATCH_SIZE = 500;

export interface ProjectorLoop extends Service {
  /** Outcome of the last batch (for tests and diagnostics). */
  lastOutcome(): BatchOutcome | undefined;
  /** /readyz check `projector:<name>`: not ready while its checkpoint has not moved for MSGX_HEAD_STALL_READY_MS with decisions waiting. */
  readonly readiness: ReadinessCheck;
}

export function createProjectorLoop(opts: ProjectorLoopOptions): ProjectorLoop {
  const { pool, projector, wakeup, clock, log } = opts;
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  let last: BatchOutcome | undefined;
  let started = false;
  const name = `projector:${projector.name}`;
  // The pump's stuck-head check, watching the checkpoint: a step waits on it from its start (a
  // batch that hangs counts), an idle step ends the wait, a failed one is named with it.
  const stall = createStallWatch({ name, what: `projector ${projector.name} at checkpoint`, clock, thresholdMs: opts.stallReadyMs ?? 0 });
  let checkpoint = '(not read yet)';
  const loop = createServiceLoop({
    clock,
    log,
    failedMsg: 'projector batch failed; retrying',
    resumedMsg: 'projector recovered',
    wakeup,
    async step() {
      stall.waiting(checkpoint);
      await opts.gate?.();
      try {
        last = await runBatch(pool, projector, { batchSize, clock, faults: opts.faults, ...(opts.read ? { read: opts.read } : {}) });
      } catch (err) {
        stall.failed(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
        throw err;
      }
      if (last.kind === 'idle') {
        checkpoint = last.position;
        stall.idle();
      } else if (last.kind === 'applied') checkpoint = last.to;
      if (last.kind === 'conflict') log.info('checkpoint moved by another instance; re-reading');
      return last.kind === 'idle' ? opts.pollIntervalMs : 0;
    },
    retryMs: () => opts.pollIntervalMs,
  });

  return {
    name,
    lastOutcome: () => last,
    readiness: stall.readiness,
    async start() {
      if (started) return;
      started = true;
      await ensureCheckpoint(pool, projector.name);
      checkpoint = (await readCheckpoint(pool, projector.name)) ?? checkpoint;
      loop.start();
    },
    stop: () => loop.stop(),
  };
}
