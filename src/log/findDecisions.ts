/**
 * Decisions looked up by what they hold: the kind at some positions (verify), and for the plan and
 * reference requests (docs/delivery.md "Plan requests"):
 * whether a day's shadow plan request or any reference data is recorded, and the Applied decisions
 * whose payload contains one of two JSON patterns (the answers to open requests).
 */
import type { Change } from '../domain/changes.ts';
import type { Queryable } from '../platform/db.ts';

/** Whether a `PlanRequestRecorded` decision names the daily request of `dailyFor`. */
export async function planRequestRecordedFor(q: Queryable, dailyFor: string): Promise<boolean> {
  const seen = await q.query(
    "SELECT 1 FROM decision_event WHERE kind = 'PlanRequestRecorded' AND payload->>'dailyFor' = $1 LIMIT 1",
    [dailyFor],
  );
  return seen.rowCount !== 0;
}

/** Whether any reference-data handler has applied a decision. */
export async function referenceApplied(q: Queryable): Promise<boolean> {
  const { rows } = await q.query<{ stored: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM decision_event WHERE handler LIKE 'reference.%' AND kind = 'Applied') AS stored",
  );
  return rows[0]?.stored === true;
}

/** The kind of each of some positions (position → kind); absent positions are left out. */
export async function decisionKinds(q: Queryable, positions: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await q.query<{ position: string; kind: string }>(
    'SELECT position::text AS position, kind FROM decision_event WHERE position = ANY($1::bigint[])',
    [positions],
  );
  return new Map(rows.map((r) => [r.position, r.kind]));
}

export interface AppliedMatch {
  readonly position: string;
  readonly msgId: string | null;
  readonly recordedAt: Date;
  /** `payload.changes`, null when absent. */
  readonly changes: readonly Change[] | null;
}

/**
 * Up to `limit` Applied decisions with `after < position <= upTo` whose payload contains either JSON
 * pattern (jsonb `@>`), ascending.
 */
export async function readAppliedMatching(
  q: Queryable,
  after: string,
  upTo: string,
  patterns: readonly [string, string],
  limit: number,
): Promise<AppliedMatch[]> {
  const { rows } = await q.query<AppliedMatch>(
    `SELECT position::text AS position, msg_id::text AS "msgId", recorded_at AS "recordedAt", payload->'changes' AS changes
       FROM decision_event
      WHERE position > $1 AND position <= $2 AND kind = 'Applied' AND (payload @> $3::jsonb OR payload @> $4::jsonb)
      ORDER BY position LIMIT $5`,
    [after, upTo, patterns[0], patterns[1], limit],
  );
  return rows;
}
