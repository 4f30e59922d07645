import type { PoolClient, Queryable } from '../../platform/db.ts';
import type { InboxRow } from '../../platform/mailbox/port.ts';

/** Read the watermark of `source`, creating the cursor row (watermark 0) on first use. */
export async function readWatermark(q: Queryable, source: string): Promise<string> {
  await q.query('INSERT INTO inbox_cursor (source) VALUES ($1) ON CONFLICT (source) DO NOTHING', [source]);
  const { rows } = await q.query<{ watermark: string }>('SELECT watermark FROM inbox_cursor WHERE source = $1', [source]);
  return rows[0]!.watermark;
}

/** Lock the cursor row for this transaction; returns the watermark as committed. */
export async function lockWatermark(c: PoolClient, source: string): Promise<string> {
  const { rows } = await c.query<{ watermark: string }>('SELECT watermark FROM inbox_cursor WHERE source = $1 FOR UPDATE', [source]);
  return rows[0]!.watermark;
}

export async function advanceWatermark(c: PoolClient, source: string, watermark: string, now: Date): Promise<void> {
  await c.query(
    'UPDATE inbox_cursor SET watermark = GREATEST(watermark, $2::bigint), updated_at = $3 WHERE source = $1',
    [source, watermark, now],
  );
}

/**
 * Copy raw inbox rows into `inbox_message` and open a `proc_state(PENDING)` for each one that was
 * not there yet. Idempotent: a row copied before (a restart re-reading it) is neither copied nor
 * enqueued again. Returns the ids that were new.
 */
export async function copyInbox(c: PoolClient, source: string, rows: readonly InboxRow[], now: Date): Promise<string[]> {
  if (rows.length === 0) return [];
  const { rows: inserted } = await c.query<{ msg_id: string }>(
    `INSERT INTO inbox_message (msg_id, source, received_at, ingested_at, raw_xml, nul_replaced)
     SELECT u.id, $1, u.received, $5, u.xml, u.nul
       FROM unnest($2::bigint[], $3::timestamptz[], $4::text[], $6::boolean[]) AS u(id, received, xml, nul)
     ON CONFLICT (msg_id) DO NOTHING
     RETURNING msg_id`,
    [
      source,
      rows.map((r) => r.id),
      rows.map((r) => r.receivedAt),
      rows.map((r) => r.xml.replaceAll('\u0000', '\uFFFD')),
      now,
      rows.map((r) => r.xml.includes('\u0000')),
    ],
  );
  const ids = inserted.map((r) => r.msg_id);
  if (ids.length > 0) {
    await c.query(
      `INSERT INTO proc_state (msg_id, state, created_at, updated_at)
       SELECT id, 'PENDING', $2, $2 FROM unnest($1::bigint[]) AS id
       ON CONFLICT (msg_id) DO NOTHING`,
      [ids, now],
    );
  }
  return ids;
}
