/**
 * When a write-model snapshot is encoded (docs/recovery.md "Write-model snapshots"): not beside a
 * plan's projection, and not beside its delivery either. The encode of a new day's snapshot is
 * hundreds of milliseconds of the writer's loop and its garbage; done while the dispatcher sends the
 * plan's 6,000 outbox rows it delayed the `schd` records by as much (docs/benchmarks.md, figure 3).
 */
import type { Queryable } from '../../platform/db.ts';

/** The Kafka targets a snapshot waits for: COUTMSGS goes one row at a time and does not run in shadow mode. */
const WAITED_TARGETS = ['KAFKA_MSG', 'KAFKA_SCHD', 'AIDX'] as const;

/** How often the outbox heads are looked at while a snapshot waits for them. */
export const OUTBOX_SETTLE_POLL_MS = 100;

/**
 * Whether no waited target's oldest PENDING row comes from a decision at or before `position`: the
 * feeder writes rows in log order, so the heads tell. One index probe per target (msg_event_head).
 */
export async function outboxPassed(q: Queryable, position: string): Promise<boolean> {
  const { rows } = await q.query<{ behind: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM unnest($2::text[]) AS t(target)
        CROSS JOIN LATERAL (SELECT source_position FROM msg_event m
                             WHERE m.target = t.target AND m.state = 'PENDING'
                             ORDER BY m.event_id LIMIT 1) h
        WHERE h.source_position <= $1::bigint) AS behind`,
    [position, WAITED_TARGETS],
  );
  return rows[0]?.behind !== true;
}

/**
 * Resolves once the outbox has delivered the Kafka rows of every decision up to `position`, after
 * `maxMs` at the latest (an outage or a backoff must not hold snapshots back for long), or when
 * `signal` aborts (the writer stops). A failed look ends the wait: the snapshot is then written.
 * Wall-clock timers, like sharedReads' `passed`: this schedules work, it decides nothing.
 */
export async function outboxSettled(q: Queryable, position: string, maxMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = performance.now() + maxMs;
  while (!signal?.aborted && performance.now() < deadline) {
    try {
      if (await outboxPassed(q, position)) return;
    } catch {
      return; // handled: a snapshot is scheduling, not correctness; it is written now
    }
    await pause(Math.min(OUTBOX_SETTLE_POLL_MS, deadline - performance.now()), signal);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, ms));
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
