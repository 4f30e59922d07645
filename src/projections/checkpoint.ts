/**
 * projection_checkpoint: the last position a projector applied. Rows and checkpoint are written in
 * one transaction; the advance is a compare-and-set, so two instances can never both apply a batch.
 */
import type { Queryable } from '../platform/db.ts';

export async function ensureCheckpoint(q: Queryable, name: string): Promise<void> {
  await q.query('INSERT INTO projection_checkpoint (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
}

/**
 * Lock the projector's checkpoint row for this transaction and return its position. Taking the row
 * lock first (before touching any read-model table) lets a rebuild's switch pause the live projector
 * by holding the same row, without lock-order deadlocks on the tables.
 */
export async function lockCheckpoint(q: Queryable, name: string): Promise<string | undefined> {
  const { rows } = await q.query<{ position: string }>(
    'SELECT position FROM projection_checkpoint WHERE name = $1 FOR UPDATE',
    [name],
  );
  return rows[0]?.position;
}

/** Compare-and-set: move from `from` to `to`; false when another writer moved it meanwhile. */
export async function advanceCheckpoint(q: Queryable, name: string, from: string, to: string, at: Date): Promise<boolean> {
  const res = await q.query(
    'UPDATE projection_checkpoint SET position = $3::bigint, updated_at = $4 WHERE name = $1 AND position = $2::bigint',
    [name, from, to, at],
  );
  return res.rowCount === 1;
}

export async function readCheckpoint(q: Queryable, name: string): Promise<string | undefined> {
  const { rows } = await q.query<{ position: string }>('SELECT position FROM projection_checkpoint WHERE name = $1', [name]);
  return rows[0]?.position;
}
