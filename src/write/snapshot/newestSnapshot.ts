/** The newest write-model snapshot made by this fold code, and how many others are stored (for the one log line). */
import type { Queryable } from '../../platform/db.ts';

export interface StoredSnapshot {
  readonly id: string;
  readonly position: string;
  readonly bytes: number;
  readonly body: Buffer;
}

export interface SnapshotLookup {
  /** The newest snapshot with the fingerprint at or below `atMost`; undefined: none. */
  readonly usable: StoredSnapshot | undefined;
  /** Snapshots stored by other fold code (never used). */
  readonly foreign: number;
}

export async function newestSnapshot(q: Queryable, fingerprint: string, atMost: string): Promise<SnapshotLookup> {
  const { rows } = await q.query<{ id: string | null; position: string | null; bytes: number | null; body: Buffer | null; foreign: number }>(
    `SELECT s.id::text AS id, s.position::text AS position, s.bytes, s.body,
            (SELECT count(*) FROM write_model_snapshot WHERE fingerprint <> $1)::int AS foreign
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (SELECT id, position, bytes, body FROM write_model_snapshot
                           WHERE fingerprint = $1 AND position <= $2::bigint ORDER BY position DESC, id DESC LIMIT 1) s ON true`,
    [fingerprint, atMost],
  );
  const r = rows[0]!;
  return {
    usable: r.id === null ? undefined : { id: r.id, position: r.position!, bytes: r.bytes!, body: r.body! },
    foreign: r.foreign,
  };
}
