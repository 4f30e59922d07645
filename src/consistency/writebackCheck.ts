/**
 * Write-back check: every terminal message (live or archived) that became terminal before `olderThan`
 * has its CMINMSGS write-back done, or pending work recorded for it (`backfill_state` DONE or
 * PENDING), with the status its state implies (SUCCEEDED → PROCESSED, SKIPPED → SKIPPED,
 * DEAD → DEAD, as the pump records it) and a terminal decision that exists in the log. A message
 * decided in shadow mode (docs/operations.md "Shadow run and cut-over") is owed no write-back: its
 * `backfill_state` is empty by design.
 */
import type { Queryable } from '../platform/db.ts';
import { readRunMode } from '../platform/runMode.ts';
import type { Mismatch } from './report.ts';

/** At most this many write-back mismatches are listed (all are counted). */
const LIST_LIMIT = 1000;

interface Row {
  msg_id: string;
  state: string;
  backfill_state: string | null;
  backfill_status: string | null;
  expected_status: string;
  decided_position: string | null;
  has_decision: boolean;
}

const TERMINAL = `SELECT msg_id, state, backfill_state, backfill_status, decided_position, updated_at FROM proc_state
                   WHERE state IN ('SUCCEEDED', 'SKIPPED', 'DEAD') AND updated_at < $1
                  UNION ALL
                  SELECT msg_id, state, backfill_state, backfill_status, decided_position, updated_at FROM proc_state_hst
                   WHERE state IN ('SUCCEEDED', 'SKIPPED', 'DEAD') AND updated_at < $1`;

export async function checkWritebacks(q: Queryable, olderThan: Date): Promise<{ messages: number; mismatches: Mismatch[] }> {
  const mode = await readRunMode(q);
  const { rows } = await q.query<Row & { shadow_decided: boolean }>(
    `WITH t AS (${TERMINAL}),
          e AS (SELECT t.*, CASE t.state WHEN 'SUCCEEDED' THEN 'PROCESSED' WHEN 'SKIPPED' THEN 'SKIPPED' ELSE 'DEAD' END AS expected_status FROM t)
     SELECT e.msg_id, e.state, e.backfill_state, e.backfill_status, e.expected_status, e.decided_position,
            EXISTS (SELECT 1 FROM decision_event d WHERE d.position = e.decided_position) AS has_decision,
            ($3::boolean OR e.decided_position <= $4::bigint) IS TRUE AS shadow_decided
       FROM e
      WHERE (e.backfill_state IS NULL AND ($3::boolean OR e.decided_position <= $4::bigint) IS NOT TRUE)
         OR e.backfill_state NOT IN ('DONE', 'PENDING')
         OR e.backfill_status IS DISTINCT FROM e.expected_status
         OR NOT EXISTS (SELECT 1 FROM decision_event d WHERE d.position = e.decided_position)
      ORDER BY e.msg_id
      LIMIT $2`,
    [olderThan, LIST_LIMIT, mode.shadow, mode.cutoverPosition],
  );
  const counted = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${TERMINAL}) t`, [olderThan]);
  const mismatches: Mismatch[] = [];
  for (const r of rows) {
    const base = { check: 'writebacks' as const, msgId: r.msg_id, state: r.state };
    if (r.backfill_state === null ? !r.shadow_decided : !['DONE', 'PENDING'].includes(r.backfill_state)) {
      mismatches.push({ ...base, problem: 'write-back neither done nor pending', log: 'DONE or PENDING', row: r.backfill_state });
    }
    if (r.backfill_status !== r.expected_status) {
      mismatches.push({ ...base, problem: 'write-back status', log: r.expected_status, row: r.backfill_status });
    }
    if (!r.has_decision) {
      mismatches.push({ ...base, problem: 'terminal decision not in the log', log: null, row: r.decided_position });
    }
  }
  return { messages: counted.rows[0]?.n ?? 0, mismatches };
}
