/**
 * schd_snap_log: one row per applied plan snapshot (PlanSnapshotApplied). `generation` is the
 * number of snapshots applied for that day up to and including this one — computed in SQL from the
 * rows already there plus the order within the batch, so live batches and a rebuild agree.
 */
import type { PlanSnapshotApplied } from '../domain/changes.ts';
import type { Queryable } from '../platform/db.ts';
import type { DecisionEvent } from '../log/readDecisions.ts';
import { columnArrays, unnestOf, type CellValue, type ColumnSpec } from '../platform/sqlBatch.ts';

export interface SnapshotRow {
  position: string;
  msgId: string | null;
  styp: string;
  day: string;
  windowStart: string | null;
  windowEnd: string | null;
  created: number;
  updated: number;
  deleted: number;
  ignored: number;
  recordedAt: string;
}

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'position', type: 'bigint' },
  { name: 'msg_id', type: 'bigint' },
  { name: 'styp', type: 'text' },
  { name: 'day', type: 'date' },
  { name: 'window_start', type: 'timestamptz' },
  { name: 'window_end', type: 'timestamptz' },
  { name: 'created', type: 'integer' },
  { name: 'updated', type: 'integer' },
  { name: 'deleted', type: 'integer' },
  { name: 'ignored', type: 'integer' },
  { name: 'recorded_at', type: 'timestamptz' },
];

export function snapshotRow(e: DecisionEvent, c: PlanSnapshotApplied): SnapshotRow {
  return {
    position: e.position, msgId: e.msgId, styp: c.stype, day: c.day,
    windowStart: c.windowStart, windowEnd: c.windowEnd,
    created: c.created, updated: c.updated, deleted: c.deleted, ignored: c.ignored,
    recordedAt: e.recordedAt,
  };
}

const cells = (r: SnapshotRow): CellValue[] => [
  r.position, r.msgId, r.styp, r.day, r.windowStart, r.windowEnd, r.created, r.updated, r.deleted, r.ignored, r.recordedAt,
];

/** Insert snapshot rows (ascending positions, all after the rows already in `table`). */
export async function insertSnapshots(q: Queryable, table: string, rows: readonly SnapshotRow[]): Promise<void> {
  if (rows.length === 0) return;
  await q.query(
    `INSERT INTO ${table} (position, msg_id, styp, day, window_start, window_end, generation,
                           created, updated, deleted, ignored, recorded_at)
     SELECT v.position, v.msg_id, v.styp, v.day, v.window_start, v.window_end,
            (SELECT count(*) FROM ${table} s WHERE s.day = v.day AND s.position < v.position)
              + row_number() OVER (PARTITION BY v.day ORDER BY v.position),
            v.created, v.updated, v.deleted, v.ignored, v.recorded_at
       FROM ${unnestOf(COLUMNS)}
         AS v(position, msg_id, styp, day, window_start, window_end, created, updated, deleted, ignored, recorded_at)`,
    columnArrays(rows.map(cells), COLUMNS),
  );
}
