/**
 * Write-back check: every terminal message (live or archived) that became terminal before `olderThan`
 * has its CMINMSGS write-back done, or pending work recorded for it (`backfill_state` DONE or
 * PENDING), with the status its state implies (SUCCEEDED → PROCESSED, SKIPPED → SKIPPED,
 * DEAD → DEAD, as the pump records it) and a terminal decision in the log. The log is gap-free and
 * append-only, so a decided position in 1..head is a decision that exists: no join per message.
 * A message decided in shadow mode (docs/operations.md "Shadow run and cut-over") is owed no
 * write-back: its `backfill_state` is empty by design.
 *
 * One scan counts the messages and the bad ones; only when there are bad ones are they listed.
 * A sample check (`newest`) looks at the newest terminal messages of each table only — the ones
 * whose write-back may still be under way — so its cost does not grow with the history.
 */
import type { Queryable } from '../platform/db.ts';
import { logHead } from '../log/head.ts';
import { readRunMode } from '../platform/runMode.ts';
import type { Mismatch } from './report.ts';

/** At most this many messages with a write-back mismatch are listed (all are counted). */
const LIST_LIMIT = 1000;

/**
 * The newest `$5` terminal messages of each table (by msg_id, through their primary keys); a null
 * `$5` is PostgreSQL's LIMIT ALL: every terminal message.
 */
const TERMINAL = `(SELECT msg_id, state, backfill_state, backfill_status, decided_position FROM proc_state
                    WHERE state IN ('SUCCEEDED', 'SKIPPED', 'DEAD') AND updated_at < $1 ORDER BY msg_id DESC LIMIT $5)
                  UNION ALL
                  (SELECT msg_id, state, backfill_state, backfill_status, decided_position FROM proc_state_hst
                    WHERE state IN ('SUCCEEDED', 'SKIPPED', 'DEAD') AND updated_at < $1 ORDER BY msg_id DESC LIMIT $5)`;

const EXPECTED_STATUS = `CASE t.state WHEN 'SUCCEEDED' THEN 'PROCESSED' WHEN 'SKIPPED' THEN 'SKIPPED' ELSE 'DEAD' END`;

/** $3: the run is in shadow mode; $4: the cut-over position (decided at or before it: in shadow). */
const SHADOW_DECIDED = `(($3::boolean OR t.decided_position <= $4::bigint) IS TRUE)`;

const BAD = `((t.backfill_state IS NULL AND NOT ${SHADOW_DECIDED}) OR t.backfill_state NOT IN ('DONE', 'PENDING')
              OR t.backfill_status IS DISTINCT FROM ${EXPECTED_STATUS}
              OR t.decided_position IS NULL OR t.decided_position < 1 OR t.decided_position > $2::bigint)`;

interface Row {
  msg_id: string;
  state: string;
  backfill_state: string | null;
  backfill_status: string | null;
  expected_status: string;
  decided_position: string | null;
  shadow_decided: boolean;
}

/**
 * `head`: the log head of the check's snapshot (read here when not given). `newest`: only the
 * newest this many terminal messages of proc_state and of proc_state_hst (a sample check).
 */
export async function checkWritebacks(q: Queryable, olderThan: Date, headPosition?: string, newest?: number): Promise<{ messages: number; mismatches: Mismatch[] }> {
  const head = headPosition ?? (await logHead(q));
  const mode = await readRunMode(q);
  const shadow = [mode.shadow, mode.cutoverPosition];
  const sample = newest ?? null;
  const counted = await q.query<{ n: number; bad: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE ${BAD})::int AS bad FROM (${TERMINAL}) t`,
    [olderThan, head, ...shadow, sample],
  );
  const { n, bad } = counted.rows[0] ?? { n: 0, bad: 0 };
  if (bad === 0) return { messages: n, mismatches: [] };
  const { rows } = await q.query<Row>(
    `SELECT t.msg_id, t.state, t.backfill_state, t.backfill_status, ${EXPECTED_STATUS} AS expected_status, t.decided_position,
            ${SHADOW_DECIDED} AS shadow_decided
       FROM (${TERMINAL}) t WHERE ${BAD} ORDER BY t.msg_id LIMIT $6`,
    [olderThan, head, ...shadow, sample, LIST_LIMIT],
  );
  const mismatches: Mismatch[] = [];
  for (const r of rows) {
    const base = { check: 'writebacks' as const, msgId: r.msg_id, state: r.state };
    if (r.backfill_state === null ? !r.shadow_decided : !['DONE', 'PENDING'].includes(r.backfill_state)) {
      mismatches.push({ ...base, problem: 'write-back neither done nor pending', log: 'DONE or PENDING', row: r.backfill_state });
    }
    if (r.backfill_status !== r.expected_status) {
      mismatches.push({ ...base, problem: 'write-back status', log: r.expected_status, row: r.backfill_status });
    }
    const pos = r.decided_position === null ? null : BigInt(r.decided_position);
    if (pos === null || pos < 1n || pos > BigInt(head)) {
      mismatches.push({ ...base, problem: 'terminal decision not in the log', log: `a position in 1..${head}`, row: r.decided_position });
    }
  }
  return { messages: n, mismatches };
}
