/**
 * What `msgx redecide` reads of the log: whole decisions after a position (up to a last one), with
 * the raw input of every decision that ended a message's processing. Read-only; positions up to a
 * committed head are all committed (they are handed out under pipeline_lock in commit order).
 */
import { decisionBody, type DecisionBody } from '../domain/decisionPayload.ts';
import type { Queryable } from '../platform/db.ts';
import { TERMINAL_KINDS } from './appendDecisions.ts';

/** A logged decision: its columns and its `{ kind, payload }` (read through decisionBody), with its message's raw input. */
export type LoggedDecision = LoggedColumns & DecisionBody;

export interface LoggedColumns {
  readonly position: string;
  readonly msgId: string | null;
  readonly handler: string | null;
  readonly handlerVersion: number | null;
  /** UTC ISO instant. */
  readonly recordedAt: string;
  /** The message's raw XML, for outcome decisions only (null otherwise). */
  readonly rawXml: string | null;
  readonly nulReplaced: boolean;
}

/** A row of a log page as PostgreSQL returns it (readLogRows): the payload still jsonb text. */
export interface LogPageRow {
  position: string;
  msg_id: string | null;
  kind: string;
  handler: string | null;
  handler_version: number | null;
  /** jsonb as text. */
  payload: string;
  recorded_at: string;
  raw_xml: string | null;
  nul_replaced: boolean | null;
}

/**
 * Up to `limit` rows of decisions with `after < position <= upTo`, ascending; with `withRaw`, outcome
 * decisions come with their message's raw XML. The payload comes as jsonb's text (redecide's page
 * reader embeds it in its page unparsed); any Queryable, so a worker thread's own client too.
 */
export async function readLogRows(q: Queryable, after: string, upTo: string, limit: number, withRaw = true): Promise<LogPageRow[]> {
  const { rows } = await q.query<LogPageRow>(
    `SELECT d.position, d.msg_id, d.kind, d.handler, d.handler_version, d.payload::text AS payload,
            to_char(d.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at,
            m.raw_xml, m.nul_replaced
       FROM decision_event d
       LEFT JOIN inbox_message m ON $5::boolean AND m.msg_id = d.msg_id AND d.kind = ANY($4::text[])
      WHERE d.position > $1::bigint AND d.position <= $2::bigint
      ORDER BY d.position
      LIMIT $3`,
    [after, upTo, limit, TERMINAL_KINDS, withRaw],
  );
  return rows;
}

/**
 * Up to `limit` decisions with `after < position <= upTo`, ascending; with `withRaw`, outcome
 * decisions come with their message's raw XML.
 */
export async function readLogPage(q: Queryable, after: string, upTo: string, limit: number, withRaw = true): Promise<LoggedDecision[]> {
  const rows = await readLogRows(q, after, upTo, limit, withRaw);
  return rows.map((r) => ({
    position: r.position,
    msgId: r.msg_id,
    handler: r.handler,
    handlerVersion: r.handler_version,
    recordedAt: r.recorded_at,
    rawXml: r.raw_xml,
    nulReplaced: r.nul_replaced ?? false,
    ...decisionBody(r.position, r.kind, JSON.parse(r.payload)),
  }));
}
