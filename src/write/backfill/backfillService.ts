import { outageRetryDelay } from '../../platform/config.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { Service } from '../../platform/service.ts';
import { createServiceLoop } from '../../platform/serviceLoop.ts';
import { dueBackfills, markBackfilled, markBackfillFailed, type DueBackfill } from './backfillSql.ts';

/** Rows read from proc_state per pass; written to CMINMSGS in chunks of CHUNK, IN_FLIGHT at a time. */
const BATCH = 2000;
const CHUNK = 500;
/** Statements in flight on the mailbox at once: the mailbox pool has 4 connections, ingest needs one. */
const IN_FLIGHT = 2;

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

  /** Writes one chunk and marks it done; on failure marks it for a retry and returns -1. */
  async function writeChunk(chunk: readonly DueBackfill[], now: Date): Promise<number> {
    try {
      await mailbox.backfill(chunk.map((d) => ({ id: d.msgId, status: d.status, processedAt: d.processedAt })));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (!failing) log.warn({ err, rows: chunk.length }, 'CMINMSGS backfill failed; retrying with backoff');
      failing = true;
      const nextAt = chunk.map((d) => new Date(now.getTime() + Math.max(1, outageRetryDelay(cfg, d.attempts + 1))));
      await markBackfillFailed(pool, chunk, nextAt, error);
      return -1;
    }
    rt.faults.reached('backfill.written');
    await markBackfilled(pool, chunk);
    if (failing) log.info('CMINMSGS backfill resumed');
    failing = false;
    return chunk.length;
  }

  async function runOnce(): Promise<number> {
    let written = 0;
    // A stop ends the pass after the chunks in flight: the rest stays PENDING in proc_state and the
    // next start writes it back (docs/operations.md "Stopping"), so a backlog never holds a stop.
    while (!stopping) {
      const now = clock.now();
      const due = await dueBackfills(pool, now, BATCH);
      if (due.length === 0) return written;
      // Each chunk is written and marked on its own (at least once: a crash between the two writes
      // it again, idempotently), IN_FLIGHT chunks at a time.
      const chunks: DueBackfill[][] = [];
      for (let i = 0; i < due.length; i += CHUNK) chunks.push(due.slice(i, i + CHUNK));
      let next = 0;
      let failed = false;
      const lane = async (): Promise<void> => {
        while (!stopping && !failed && next < chunks.length) {
          const n = await writeChunk(chunks[next++]!, now);
          if (n < 0) failed = true;
          else written += n;
        }
      };
      await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, chunks.length) }, lane));
      if (failed || due.length < BATCH) return written;
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
