import { outageRetryDelay } from '../../platform/config.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { Service } from '../../platform/service.ts';
import { createServiceLoop } from '../../platform/serviceLoop.ts';
import { dueBackfills, markBackfilled, markBackfillFailed } from './backfillSql.ts';

const BATCH = 500;

export interface Backfill extends Service {
  /** A decision committed: write back soon. Never blocks the caller. */
  kick(): void;
  /** Write back every due row once; returns how many were written. */
  runOnce(): Promise<number>;
}

/**
 * Writes CMINMSGS_DATE_PROCESSED / CMINMSGS_STATUS after the decision committed (docs/contract/design.md §7).
 * The pending work is `proc_state.backfill_state = 'PENDING'`, so this loop is both the fast path
 * (kicked by the pump) and the compensating scanner (a restart or an outage leaves rows pending).
 * A failed write-back is retried with the backoff table, capped at OUTAGE_RETRY_MAX_MS, for as
 * long as it takes: a mailbox outage delays the write-back, never the pump.
 */
export function createBackfill(rt: Runtime): Backfill {
  const { pool, mailbox, clock, cfg } = rt;
  const log = rt.log.child({ role: 'backfill' });
  let failing = false;
  let stopping = false;

  async function runOnce(): Promise<number> {
    let written = 0;
    // A stop ends the pass after the batch in flight: the rest stays PENDING in proc_state and the
    // next start writes it back (docs/operations.md "Stopping"), so a backlog never holds a stop.
    while (!stopping) {
      const now = clock.now();
      const due = await dueBackfills(pool, now, BATCH);
      if (due.length === 0) return written;
      try {
        await mailbox.backfill(due.map((d) => ({ id: d.msgId, status: d.status, processedAt: d.processedAt })));
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        if (!failing) log.warn({ err, rows: due.length }, 'CMINMSGS backfill failed; retrying with backoff');
        failing = true;
        const nextAt = due.map((d) => new Date(now.getTime() + Math.max(1, outageRetryDelay(cfg, d.attempts + 1))));
        await markBackfillFailed(pool, due, nextAt, error);
        return written;
      }
      rt.faults.reached('backfill.written');
      await markBackfilled(pool, due);
      if (failing) log.info('CMINMSGS backfill resumed');
      failing = false;
      written += due.length;
      if (due.length < BATCH) return written;
    }
    return written;
  }

  const loop = createServiceLoop({
    clock,
    log,
    failedMsg: 'backfill scanner cannot reach its database',
    async step() {
      await runOnce();
      return cfg.pollIntervalMs;
    },
    retryMs: (failures) => outageRetryDelay(cfg, failures),
  });

  return {
    name: 'backfill',
    start: async () => loop.start(),
    stop: () => {
      stopping = true;
      return loop.stop();
    },
    kick: () => loop.wake(),
    runOnce,
  };
}
