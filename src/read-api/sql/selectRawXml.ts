import type { Queryable } from '../../platform/db.ts';

/** The raw XML of messages by id (`InboxMessage.rawXml` only: up to 16 MiB each, paid for in costLimit.ts). */
export async function selectRawXml(q: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await q.query<{ id: string; rawXml: string }>(
    `SELECT msg_id::text AS id, raw_xml AS "rawXml" FROM inbox_message WHERE msg_id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.rawXml]));
}
