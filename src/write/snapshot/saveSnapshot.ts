/**
 * Record one write-model snapshot and keep only the newest KEEP_SNAPSHOTS, in one transaction: a
 * crash before COMMIT leaves the snapshots as they were (docs/recovery.md, crash matrix).
 */
import type { Pool } from '../../platform/db.ts';
import type { FaultPoint } from '../../platform/faults.ts';

export const KEEP_SNAPSHOTS = 3;

export interface SnapshotRow {
  readonly position: string;
  readonly fingerprint: string;
  readonly latestDay: string | null;
  readonly flights: number;
  readonly body: Buffer;
  readonly writeMs: number;
}

export async function saveSnapshot(pool: Pool, s: SnapshotRow, reached: (point: FaultPoint) => void = () => undefined): Promise<string> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO write_model_snapshot (position, fingerprint, latest_day, flights, bytes, write_ms, body)
       VALUES ($1::bigint, $2, $3, $4::int, $5::int, $6::int, $7::bytea) RETURNING id::text AS id`,
      [s.position, s.fingerprint, s.latestDay, s.flights, s.body.length, Math.round(s.writeMs), s.body],
    );
    reached('snapshot.inserted');
    await c.query(
      `DELETE FROM write_model_snapshot WHERE id NOT IN (SELECT id FROM write_model_snapshot ORDER BY position DESC, id DESC LIMIT $1::int)`,
      [KEEP_SNAPSHOTS],
    );
    await c.query('COMMIT');
    return rows[0]!.id;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}
