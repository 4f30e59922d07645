import type { Queryable } from '../../platform/db.ts';

const COLUMNS = `msg_id, state, identity_key, error_class, last_error, attempts, next_attempt_at, first_failure_at,
  decided_position, backfill_state, backfill_status, backfill_attempts, backfill_next_at, backfill_error,
  created_at, updated_at, cause_class`;

/**
 * Move terminal `proc_state` rows last changed before `olderThan` to `proc_state_hst` (one
 * statement, so a row is in exactly one of the two tables). Kept live: rows whose CMINMSGS
 * write-back is still pending, and DEAD(EXHAUSTED) rows — operator work that `msgx replay` needs.
 * `inbox_message` keeps the raw XML; identities stay bound through proc_state_hst.
 */
export async function archiveProcState(q: Queryable, olderThan: Date, now: Date, limit = 10_000): Promise<number> {
  const res = await q.query(
    `WITH moved AS (
       DELETE FROM proc_state
        WHERE msg_id IN (
          SELECT msg_id FROM proc_state
           WHERE state IN ('SUCCEEDED', 'SKIPPED', 'DEAD') AND updated_at < $1
             AND NOT (state = 'DEAD' AND error_class = 'EXHAUSTED')
             AND backfill_state IS DISTINCT FROM 'PENDING'
           ORDER BY msg_id LIMIT $3)
       RETURNING ${COLUMNS})
     INSERT INTO proc_state_hst (${COLUMNS}, archived_at)
     SELECT ${COLUMNS}, $2 FROM moved`,
    [olderThan, now, limit],
  );
  return res.rowCount ?? 0;
}
