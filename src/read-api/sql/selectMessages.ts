import type { Queryable } from '../../platform/db.ts';

/**
 * inbox_message + its processing state (live row, or the archived one in proc_state_hst), without
 * the raw XML (selectRawXml loads it when `rawXml` is asked for: docs/read-api.md §Queries).
 */
export interface MessageRecord {
  readonly id: string;
  readonly receivedAt: Date | null;
  readonly ingestedAt: Date;
  readonly sndr: string | null;
  readonly seqn: string | null;
  readonly dttm: string | null;
  readonly type: string | null;
  readonly styp: string | null;
  readonly rcvr: string | null;
  readonly mgid: string | null;
  readonly rmid: string | null;
  /**
   * The head of the raw XML, up to its first `</META>` and at most `prefixChars` characters — only
   * when the META columns are empty and the message is not MALFORMED (decode found no META in a
   * MALFORMED one); otherwise null. PostgreSQL reads only that slice of a TOASTed value.
   */
  readonly metaPrefix: string | null;
  readonly state: string | null;
  readonly identityKey: string | null;
  readonly errorClass: string | null;
  readonly lastError: string | null;
  readonly attempts: number | null;
  readonly nextAttemptAt: Date | null;
}

export async function selectMessages(q: Queryable, ids: readonly string[], prefixChars: number): Promise<Map<string, MessageRecord>> {
  const { rows } = await q.query<MessageRecord>(
    `SELECT m.msg_id::text AS id, m.received_at AS "receivedAt", m.ingested_at AS "ingestedAt",
            m.sndr, m.seqn, m.dttm, m.type, m.styp, m.rcvr, m.mgid, m.rmid,
            CASE WHEN (m.sndr IS NULL OR m.type IS NULL) AND s."errorClass" IS DISTINCT FROM 'MALFORMED'
                 THEN (SELECT left(h, coalesce(nullif(strpos(h, '</META>'), 0) + 6, $2::int))
                         FROM (SELECT left(m.raw_xml, $2::int) AS h) AS head) END AS "metaPrefix",
            coalesce(p.state, h.state) AS state,
            coalesce(p.identity_key, h.identity_key) AS "identityKey",
            s."errorClass",
            CASE WHEN p.msg_id IS NOT NULL THEN p.last_error ELSE h.last_error END AS "lastError",
            coalesce(p.attempts, h.attempts) AS attempts,
            CASE WHEN p.msg_id IS NOT NULL THEN p.next_attempt_at ELSE h.next_attempt_at END AS "nextAttemptAt"
       FROM inbox_message m
       LEFT JOIN proc_state p ON p.msg_id = m.msg_id
       LEFT JOIN proc_state_hst h ON h.msg_id = m.msg_id
      CROSS JOIN LATERAL (SELECT CASE WHEN p.msg_id IS NOT NULL THEN p.error_class ELSE h.error_class END AS "errorClass") AS s
      WHERE m.msg_id = ANY($1::bigint[])`,
    [ids, prefixChars],
  );
  return new Map(rows.map((r) => [r.id, r]));
}
