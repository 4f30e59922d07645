import type { Queryable } from '../../platform/db.ts';
import {
  DECISION_RECORD_COLUMNS as COLUMNS, toDecisionRecord as toRecord, type DecisionRecord, type DecisionRecordRow as Row,
} from '../../log/readDecisions.ts';

export type { DecisionRecord };

/** Every decision of the given messages, grouped per msg_id, in log order. */
export async function selectDecisionsByMsgIds(q: Queryable, msgIds: readonly string[]): Promise<Map<string, DecisionRecord[]>> {
  const { rows } = await q.query<Row>(
    `SELECT ${COLUMNS} FROM decision_event WHERE msg_id = ANY($1::bigint[]) ORDER BY msg_id, position`,
    [msgIds],
  );
  const out = new Map<string, DecisionRecord[]>();
  for (const r of rows) {
    const list = out.get(r.msgId!) ?? [];
    list.push(toRecord(r));
    out.set(r.msgId!, list);
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
