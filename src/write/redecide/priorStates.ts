/**
 * What a re-decision starts from besides the log (docs/operations.md "Handler fix: redecide, read the report, apply, verify"): the
 * identities bound before its first position, and the current state of the messages it touches.
 */
import { queryMap, type Queryable } from '../../platform/db.ts';

/**
 * Identities bound by messages decided at or before `position` (the prefix a re-decision after it
 * starts from): identity → message id.
 */
export async function identitiesBoundBy(q: Queryable, position: string): Promise<Map<string, string>> {
  if (position === '0') return new Map();
  return queryMap(q,
    `SELECT identity_key AS k, msg_id AS v FROM proc_state WHERE identity_key IS NOT NULL AND decided_position <= $1::bigint
     UNION ALL
     SELECT identity_key AS k, msg_id AS v FROM proc_state_hst WHERE identity_key IS NOT NULL AND decided_position <= $1::bigint`,
    [position]);
}

/** Current processing state of some messages (msg id → state). */
export async function procStatesOf(q: Queryable, msgIds: readonly string[]): Promise<Map<string, string>> {
  if (msgIds.length === 0) return new Map();
  return queryMap(q, 'SELECT msg_id AS k, state AS v FROM proc_state WHERE msg_id = ANY($1::bigint[])', [msgIds]);
}
