import type { PoolClient, Queryable } from '../../platform/db.ts';
import pg from 'pg';
import type { InboxRow } from '../../platform/mailbox/port.ts';
import { SqlParams } from '../../platform/sqlBatch.ts';

/** Read the watermark of `source`, creating the cursor row (watermark 0) on first use. */
export async function readWatermark(q: Queryable, source: string): Promise<string> {
  const read = async () => (await q.query<{ watermark: string }>('SELECT watermark FROM inbox_cursor WHERE source = $1', [source])).rows[0]?.watermark;
  const watermark = await read();
  if (watermark !== undefined) return watermark;
  await q.query('INSERT INTO inbox_cursor (source) VALUES ($1) ON CONFLICT (source) DO NOTHING', [source]);
  return (await read())!;
}

/**
 * The statement that locks the cursor row of `source` for the transaction (the watermark as
 * committed): without parameters, so that it can travel with BEGIN (withOpenedTransaction).
 */
export const lockWatermarkSql = (source: string): string => `SELECT watermark FROM inbox_cursor WHERE source = ${pg.escapeLiteral(source)} FOR UPDATE`;

/** `advanceWatermark` as a data-modifying CTE `advanced` of a statement whose parameters are `params`. */
export function advanceWatermarkCte(source: string, watermark: string, now: Date, params: SqlParams): string {
  return `advanced AS (
      UPDATE inbox_cursor SET watermark = GREATEST(watermark, ${params.add(watermark)}::bigint), updated_at = ${params.add(now)}
       WHERE source = ${params.add(source)})`;
}

/**
 * Copy raw inbox rows into `inbox_message` and open a `proc_state(PENDING)` for each one that was
 * not there yet — one statement. Idempotent: a row copied before (a restart re-reading it) is
 * neither copied nor enqueued again. Returns the ids that were new.
 */
export async function copyInbox(c: PoolClient, source: string, rows: readonly InboxRow[], now: Date): Promise<string[]> {
  if (rows.length === 0) return [];
  const params = new SqlParams();
  const { rows: inserted } = await c.query<{ msg_id: string }>(`WITH ${copyCtes(source, rows, now, params)} SELECT msg_id FROM copied`, params.values);
  return inserted.map((r) => r.msg_id);
}

/**
 * `copyInbox` as data-modifying CTEs of a statement whose parameters are `params`: `copied` (the
 * new rows' msg_id) and `queued` (their proc_state rows).
 */
export function copyCtes(source: string, rows: readonly InboxRow[], now: Date, params: SqlParams): string {
  const at = `${params.add(now)}::timestamptz`;
  return `copied AS (
      INSERT INTO inbox_message (msg_id, source, received_at, ingested_at, raw_xml, nul_replaced)
      SELECT u.id, ${params.add(source)}, u.received, ${at}, u.xml, u.nul
        FROM unnest(${params.add(rows.map((r) => r.id))}::bigint[], ${params.add(rows.map((r) => r.receivedAt))}::timestamptz[],
                    ${params.add(rows.map((r) => r.xml.replaceAll('\u0000', '\uFFFD')))}::text[], ${params.add(rows.map((r) => r.xml.includes('\u0000')))}::boolean[])
             AS u(id, received, xml, nul)
      ON CONFLICT (msg_id) DO NOTHING
      RETURNING msg_id),
    queued AS (
      INSERT INTO proc_state (msg_id, state, created_at, updated_at)
      SELECT msg_id, 'PENDING', ${at}, ${at} FROM copied
      ON CONFLICT (msg_id) DO NOTHING)`;
}
