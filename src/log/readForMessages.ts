/** The decisions the read API shows: a message's story and a flight's history (docs/read-api.md). */
import type { Queryable } from '../platform/db.ts';
import {
  DECISION_RECORD_COLUMNS as COLUMNS, toDecisionRecord as toRecord, type DecisionRecord, type DecisionRecordRow as Row,
} from './readDecisions.ts';

export type { DecisionRecord };

/**
 * Every decision of the given messages, grouped per msg_id, in log order — with the Corrections
 * (msgx redecide --apply) that superseded an outcome of the message (correction_supersedes).
 */
export async function selectDecisionsByMsgIds(q: Queryable, msgIds: readonly string[]): Promise<Map<string, DecisionRecord[]>> {
  const { rows } = await q.query<Row & { forMsg: string }>(
    `SELECT x.for_msg::text AS "forMsg", ${COLUMNS} FROM (
       SELECT d.msg_id AS for_msg, d.* FROM decision_event d WHERE d.msg_id = ANY($1::bigint[])
       UNION ALL
       SELECT s.msg_id, d.* FROM correction_supersedes s JOIN decision_event d ON d.position = s.position
        WHERE s.msg_id = ANY($1::bigint[])
     ) x ORDER BY x.for_msg, x.position`,
    [msgIds],
  );
  const out = new Map<string, DecisionRecord[]>();
  for (const { forMsg, ...r } of rows) {
    const list = out.get(forMsg) ?? [];
    list.push(toRecord(r));
    out.set(forMsg, list);
  }
  return out;
}

/** Decisions touching `flid` after position `after` (exclusive), at most `limit`, in log order. */
export async function selectFlightHistory(q: Queryable, flid: string, after: string | null, limit: number): Promise<DecisionRecord[]> {
  const { rows } = await q.query<Row>(
    `SELECT ${COLUMNS} FROM decision_event
      WHERE flids @> ARRAY[$1::text] AND position > coalesce($2::bigint, 0)
      ORDER BY position LIMIT $3`,
    [flid, after, limit],
  );
  return rows.map(toRecord);
}

/** Decisions touching `flid` recorded at or before `asOf`, in log order (the input of flight(asOf)). */
export async function selectFlightDecisionsUntil(q: Queryable, flid: string, asOf: string): Promise<DecisionRecord[]> {
  const { rows } = await q.query<Row>(
    `SELECT ${COLUMNS} FROM decision_event
      WHERE flids @> ARRAY[$1::text] AND recorded_at <= $2::timestamptz
      ORDER BY position`,
    [flid, asOf],
  );
  return rows.map(toRecord);
}
