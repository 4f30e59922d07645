import type { Queryable } from '../../platform/db.ts';

/** Narrowing of the console's message list (every field optional; all combine with AND). */
export interface MessageFilter {
  readonly errorClass?: string | null;
  readonly sender?: string | null;
  readonly type?: string | null;
  readonly subtype?: string | null;
  /** Ingested at or after (UTC ISO). */
  readonly since?: string | null;
  /** Ingested before (UTC ISO). */
  readonly until?: string | null;
}

/** Ids of the messages in any of `states` narrowed by `filter`, newest first. */
export async function selectMessageIdsInState(q: Queryable, states: readonly string[], filter: MessageFilter, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT p.msg_id::text AS id FROM proc_state p JOIN inbox_message m USING (msg_id)
      WHERE p.state = ANY($1::text[]) AND ($2::text IS NULL OR p.error_class = $2 OR p.cause_class = $2)
        AND ($3::text IS NULL OR m.sndr = $3) AND ($4::text IS NULL OR m.type = $4) AND ($5::text IS NULL OR m.styp = $5)
        AND ($6::timestamptz IS NULL OR m.ingested_at >= $6) AND ($7::timestamptz IS NULL OR m.ingested_at < $7)
      ORDER BY p.msg_id DESC LIMIT $8`,
    [states, filter.errorClass ?? null, filter.sender ?? null, filter.type ?? null, filter.subtype ?? null, filter.since ?? null, filter.until ?? null, limit],
  );
  return rows.map((r) => r.id);
}
