/** The sentinel's results in consistency_check (migration 120): what GraphQL and /metrics show. */
import type { Queryable } from '../platform/db.ts';
import type { CheckReport } from './report.ts';

export type CheckTrigger = 'start' | 'daily' | 'cli';

/** Mismatches kept in the row's report (all are counted). */
const KEEP = 1000;

export async function recordCheck(q: Queryable, trigger: CheckTrigger, r: CheckReport): Promise<void> {
  await q.query(
    `INSERT INTO consistency_check
       (trigger, scope, checked_at, sampled, decisions, messages, mismatches, flights_position, outbox_position, duration_ms, report)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::bigint, $9::bigint, $10, $11::jsonb)`,
    [
      trigger, r.scope, r.checkedAt, r.checked.flights, r.checked.decisions, r.checked.messages, r.mismatches.length,
      r.positions.flights, r.positions.outbox, Math.round(r.seconds * 1000),
      JSON.stringify({ positions: r.positions, mismatches: r.mismatches.slice(0, KEEP) }),
    ],
  );
}
