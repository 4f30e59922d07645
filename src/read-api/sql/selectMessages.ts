import type { Queryable } from '../../platform/db.ts';

/** inbox_message + its processing state (live row, or the archived one in proc_state_hst). */
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
  readonly rawXml: string;
  readonly state: string | null;
  readonly identityKey: string | null;
  readonly errorClass: string | null;
  readonly lastError: string | null;
  readonly attempts: number | null;
  readonly nextAttemptAt: Date | null;
}

export async function selectMessages(q: Queryable, ids: readonly string[]): Promise<Map<string, MessageRecord>> {
  const { rows } = await q.query<MessageRecord>(
    `SELECT m.msg_id::text AS id, m.received_at AS "receivedAt", m.ingested_at AS "ingestedAt",
            m.sndr, m.seqn, m.dttm, m.type, m.styp, m.rcvr, m.mgid, m.rmid, m.raw_xml AS "rawXml",
            coalesce(p.state, h.state) AS state,
            coalesce(p.identity_key, h.identity_key) AS "identityKey",
            CASE WHEN p.msg_id IS NOT NULL THEN p.error_class ELSE h.error_class END AS "errorClass",
            CASE WHEN p.msg_id IS NOT NULL THEN p.last_error ELSE h.last_error END AS "lastError",
            coalesce(p.attempts, h.attempts) AS attempts,
            CASE WHEN p.msg_id IS NOT NULL THEN p.next_attempt_at ELSE h.next_attempt_at END AS "nextAttemptAt"
       FROM inbox_message m
       LEFT JOIN proc_state p ON p.msg_id = m.msg_id
       LEFT JOIN proc_state_hst h ON h.msg_id = m.msg_id
      WHERE m.msg_id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r]));
}
