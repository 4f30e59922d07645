import type { Queryable } from '../../platform/db.ts';

export const INBOX_SOURCE = 'CMINMSGS';

/** How much XML one scan of the pump loads at most (see findHeads). */
export const HEAD_BYTES = 64 * 1024 * 1024;

/** An unfinished message at the front of the FIFO, with what the pump needs to decide it. */
export interface Head {
  readonly msgId: string;
  readonly state: 'PENDING' | 'FAILED';
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly firstFailureAt: Date | null;
  readonly identityKey: string | null;
  readonly rawXml: string;
  /** When it was ingested (inbox_message's partition key). */
  readonly ingestedAt: Date;
  /** The mailbox row held U+0000, stored as U+FFFD (migration 011): never well-formed XML. */
  readonly nulReplaced: boolean;
}

/**
 * The smallest unfinished ids (PENDING or FAILED), ascending, that lie below the safe horizon:
 * the lowest open ingest gap. Nothing at or above an open gap may be decided (a smaller id may
 * still commit there). At most `limit` heads, and only as many as fit in `maxBytes` of XML (always
 * at least one): a backlog of big plan snapshots must not be loaded into memory all at once.
 * (`octet_length` of a stored text reads its TOAST header; nothing is decompressed to count it.)
 * `after`: only ids above it (the pump reads the next batch while the last group of one commits).
 */
export async function findHeads(q: Queryable, limit: number, maxBytes: number = HEAD_BYTES, after = '0'): Promise<Head[]> {
  const { rows } = await q.query<{
    msg_id: string;
    state: 'PENDING' | 'FAILED';
    attempts: number;
    next_attempt_at: Date | null;
    first_failure_at: Date | null;
    identity_key: string | null;
    raw_xml: string;
    ingested_at: Date;
    nul_replaced: boolean;
  }>({
    // Named: planned once per connection (the pump runs it every PREFETCH heads).
    name: 'msgx_pump_find_heads',
    text: `SELECT h.msg_id, h.state, h.attempts, h.next_attempt_at, h.first_failure_at, h.identity_key, h.raw_xml, h.ingested_at, h.nul_replaced
       FROM (SELECT p.msg_id, p.state, p.attempts, p.next_attempt_at, p.first_failure_at, p.identity_key, m.raw_xml, m.ingested_at, m.nul_replaced,
                    sum(octet_length(m.raw_xml)) OVER (ORDER BY p.msg_id) - octet_length(m.raw_xml) AS bytes_before
               FROM proc_state p JOIN inbox_message m USING (msg_id)
              WHERE p.state IN ('PENDING', 'FAILED')
                AND p.msg_id > $4::bigint
                AND p.msg_id < COALESCE((SELECT min(gap_id) FROM inbox_gap WHERE source = $1 AND closed_at IS NULL),
                                        9223372036854775807)
              ORDER BY p.msg_id
              LIMIT $2) h
      WHERE h.bytes_before < $3
      ORDER BY h.msg_id`,
    values: [INBOX_SOURCE, limit, maxBytes, after],
  });
  return rows.map((r) => ({
    msgId: r.msg_id,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    firstFailureAt: r.first_failure_at,
    identityKey: r.identity_key,
    rawXml: r.raw_xml,
    ingestedAt: r.ingested_at,
    nulReplaced: r.nul_replaced,
  }));
}

/**
 * The messages (live or archived) holding any of `identities`: identity → msg ids. One statement
 * for a whole group of heads (it was one round trip per message, the pump's largest cost).
 */
export async function identityOwners(q: Queryable, identities: readonly string[]): Promise<Map<string, string[]>> {
  const owners = new Map<string, string[]>();
  if (identities.length === 0) return owners;
  const { rows } = await q.query<{ identity_key: string; msg_id: string }>({
    name: 'msgx_pump_identity_owners', // once per group: planned once per connection
    text: `SELECT identity_key, msg_id FROM proc_state WHERE identity_key = ANY($1::text[])
     UNION ALL
     SELECT identity_key, msg_id FROM proc_state_hst WHERE identity_key = ANY($1::text[])`,
    values: [identities],
  });
  for (const r of rows) owners.set(r.identity_key, [...(owners.get(r.identity_key) ?? []), r.msg_id]);
  return owners;
}

/**
 * Whether `heads` (read earlier, ascending) are still the front of the FIFO with the log at
 * `position`: the log has not moved (a replay or an operator action appends a decision), the
 * smallest unfinished id is their first, and no open gap lies at or below their last. One small
 * statement instead of reading the heads again.
 */
export async function stillFront(q: Queryable, heads: readonly Head[], position: string): Promise<boolean> {
  if (heads.length === 0) return false;
  const { rows } = await q.query<{ position: string; head: string | null; gap: string | null }>({
    name: 'msgx_pump_still_front',
    text: `SELECT (SELECT last_position::text FROM pipeline_lock WHERE id = 1) AS position,
                  (SELECT min(msg_id)::text FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS head,
                  (SELECT min(gap_id)::text FROM inbox_gap WHERE source = $1 AND closed_at IS NULL) AS gap`,
    values: [INBOX_SOURCE],
  });
  const r = rows[0]!;
  return r.position === position && r.head === heads[0]!.msgId && (r.gap === null || BigInt(r.gap) > BigInt(heads.at(-1)!.msgId));
}
