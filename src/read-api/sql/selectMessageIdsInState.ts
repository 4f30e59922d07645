import type { Queryable } from '../../platform/db.ts';

/** Ids of the messages in any of `states` (optionally of one error class), newest first. */
export async function selectMessageIdsInState(q: Queryable, states: readonly string[], errorClass: string | null, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT msg_id::text AS id FROM proc_state
      WHERE state = ANY($1::text[]) AND ($2::text IS NULL OR error_class = $2 OR cause_class = $2)
      ORDER BY msg_id DESC LIMIT $3`,
    [states, errorClass, limit],
  );
  return rows.map((r) => r.id);
}
