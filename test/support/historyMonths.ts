/**
 * Months of history for the archive tests (docs/operations.md "Archive a month"): a month's three
 * partitions seeded with messages, their finished proc_state_hst rows and their decisions; every
 * row of a month read back for comparison; a write-model snapshot at the log's head.
 */
import { logHead } from '../../src/log/head.ts';
import { HISTORY_TABLES } from '../../src/log/historyMonths.ts';
import { withTransaction, type Pool } from '../../src/platform/db.ts';
import { foldModelUpTo } from '../../src/write/snapshot/foldUpTo.ts';
import { saveSnapshot } from '../../src/write/snapshot/saveSnapshot.ts';
import { encodeImage } from '../../src/write/snapshot/snapshotCodec.ts';
import { appendAllWith, type SeedDecision } from './decisions.ts';

/**
 * `count` messages of `month` (ids from `firstId`), each skipped, their rows in the month's
 * partitions; with `inDefault`, no partition is made for the month, so they land in the DEFAULT ones.
 */
export async function seedMonth(pool: Pool, month: string, firstId: number, count: number, opts: { inDefault?: boolean } = {}): Promise<void> {
  if (!opts.inDefault) for (const { table } of HISTORY_TABLES) await pool.query('SELECT msgx_month_partition($1, $2::date)', [table, `${month}-01`]);
  const ds: SeedDecision[] = [];
  for (let i = 0; i < count; i++) {
    const id = String(firstId + i);
    const at = new Date(Date.parse(`${month}-02T00:00:00Z`) + i * 60_000);
    await pool.query(
      `INSERT INTO inbox_message (msg_id, received_at, ingested_at, type, raw_xml) VALUES ($1, $2, $2, 'FLOP', $3)`,
      [id, at, `<MSG><ID>${id}</ID><TXT>é ${'x'.repeat(i)}</TXT></MSG>`],
    );
    await pool.query(
      `INSERT INTO proc_state_hst (msg_id, state, identity_key, attempts, backfill_attempts, decided_position, created_at, updated_at, archived_at)
       VALUES ($1, 'SKIPPED', $2, 1, 0, NULL, $3, $3, $3)`,
      [id, `k-${id}`, at],
    );
    ds.push({ msgId: id, kind: 'Skipped', payload: { reason: `unknown-flight ${id}` }, recordedAt: at });
  }
  await withTransaction(pool, (c) => appendAllWith(c, ds));
}

/** Every row of a month's three partitions, as JSON, in key order. */
export async function monthRows(pool: Pool, month: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const spec of HISTORY_TABLES) {
    const lo = new Date(`${month}-01T00:00:00Z`);
    const hi = new Date(lo);
    hi.setUTCMonth(hi.getUTCMonth() + 1);
    const { rows } = await pool.query<{ j: string }>(
      `SELECT to_jsonb(t)::text AS j FROM ${spec.table} t WHERE ${spec.partitionKey} >= $1 AND ${spec.partitionKey} < $2 ORDER BY ${spec.rowKey}`,
      [lo, hi],
    );
    out[spec.table] = rows.map((r) => r.j);
  }
  return out;
}

/** A write-model snapshot of the log at its head, as the writer records one, under `fingerprint`; returns its position. */
export async function snapshotAtHead(pool: Pool, fingerprint: string): Promise<string> {
  const model = await foldModelUpTo(pool, await logHead(pool));
  const image = model.capture();
  const body = await encodeImage(image);
  await saveSnapshot(pool, { position: image.position, fingerprint, latestDay: image.latestDay, flights: image.flights.size, body, writeMs: 1 });
  return image.position;
}
