/**
 * The newest write-model snapshot made by this fold code, and how many others are stored (for the
 * one log line). Only the document's head is read (MAGIC, length, header: `substring` of the bytea,
 * which PostgreSQL reads as a slice of the stored value — migration 330 stores it uncompressed);
 * the days' bytes, which grow with the live flights, are read by `snapshotDays` (docs/recovery.md
 * "Start cost").
 */
import type { Queryable } from '../../platform/db.ts';
import { HEAD_PREFIX } from './snapshotCodec.ts';

export interface StoredSnapshot {
  readonly id: string;
  readonly position: string;
  readonly bytes: number;
  /** The document's first bytes: MAGIC, the header's length and the header (all of it when the length is not of this version). */
  readonly head: Buffer;
}

export interface SnapshotLookup {
  /** The newest snapshot with the fingerprint at or below `atMost`; undefined: none. */
  readonly usable: StoredSnapshot | undefined;
  /** Snapshots stored by other fold code (never used). */
  readonly foreign: number;
}

export async function newestSnapshot(q: Queryable, fingerprint: string, atMost: string): Promise<SnapshotLookup> {
  const { rows } = await q.query<{ id: string | null; position: string | null; bytes: number | null; head: Buffer | null; foreign: number }>(
    `SELECT s.id::text AS id, s.position::text AS position, s.bytes,
            -- $3: the prefix's length; the header's length is its u32 at bytes 9–12 (get_byte of the slice only)
            substring(s.body FROM 1 FOR CASE WHEN octet_length(p.prefix) >= $3::int
              THEN least($3::int + ((get_byte(p.prefix, 8)::bigint << 24) | (get_byte(p.prefix, 9) << 16) | (get_byte(p.prefix, 10) << 8) | get_byte(p.prefix, 11)),
                         octet_length(s.body))::int
              ELSE octet_length(s.body) END) AS head,
            (SELECT count(*) FROM write_model_snapshot WHERE fingerprint <> $1)::int AS foreign
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (SELECT id, position, bytes, body FROM write_model_snapshot
                           WHERE fingerprint = $1 AND position <= $2::bigint ORDER BY position DESC, id DESC LIMIT 1) s ON true
       LEFT JOIN LATERAL (SELECT substring(s.body FROM 1 FOR $3::int) AS prefix) p ON true`,
    [fingerprint, atMost, HEAD_PREFIX],
  );
  const r = rows[0]!;
  return {
    usable: r.id === null ? undefined : { id: r.id, position: r.position!, bytes: r.bytes!, head: r.head! },
    foreign: r.foreign,
  };
}

/**
 * The days' bytes of snapshot `id`: everything after its head (`from` bytes). Rejects when the
 * row is gone (a newer writer keeps only the newest few): read it in the transaction that read the
 * head, or fall back to another start (WriteModel.ready does).
 */
export async function snapshotDays(q: Queryable, id: string, from: number): Promise<Buffer> {
  const { rows } = await q.query<{ days: Buffer }>('SELECT substring(body FROM $2::int + 1) AS days FROM write_model_snapshot WHERE id = $1::bigint', [id, from]);
  if (rows[0] === undefined) throw new Error(`write-model snapshot ${id} was deleted before its flights were read`);
  return rows[0].days;
}

/** `length` bytes of snapshot `id` from byte `from` (0-based): one day's chunk, for a check that reads a few. */
export async function snapshotSlice(q: Queryable, id: string, from: number, length: number): Promise<Buffer> {
  const { rows } = await q.query<{ part: Buffer }>('SELECT substring(body FROM $2::int + 1 FOR $3::int) AS part FROM write_model_snapshot WHERE id = $1::bigint', [id, from, length]);
  if (rows[0] === undefined) throw new Error(`write-model snapshot ${id} was deleted before its flights were read`);
  return rows[0].part;
}
