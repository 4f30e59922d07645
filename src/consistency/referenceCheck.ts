/**
 * Reference check (`--all` only): the reference projector's tables against the fold of the log up
 * to its checkpoint, with the projector's own fold (`foldReferenceEvents`) and its own row cells
 * (`recordCells`, `seasonalFlightCells`, `seasonCells` of writeReference.ts), column by column:
 * reference_record by (kind, code), seasonal_season by season, seasonal_flight by (season, seq).
 */
import { sameValue } from '../domain/lists.ts';
import type { Queryable } from '../platform/db.ts';
import type { CellValue, ColumnSpec } from '../platform/sqlBatch.ts';
import { selectList, type DbRow } from '../readModel/flightRows.ts';
import type { PendingReference } from '../projections/reference/referenceFold.ts';
import {
  REFERENCE_RECORD_COLUMNS, SEASONAL_FLIGHT_COLUMNS, SEASONAL_SEASON_COLUMNS, recordCells, seasonCells, seasonalFlightCells,
} from '../projections/reference/writeReference.ts';
import type { Mismatch } from './report.ts';

interface TableSpec {
  readonly table: 'reference_record' | 'seasonal_season' | 'seasonal_flight';
  readonly columns: readonly ColumnSpec[];
  readonly key: readonly string[];
}

const TABLES: readonly TableSpec[] = [
  { table: 'reference_record', columns: REFERENCE_RECORD_COLUMNS, key: ['kind', 'code'] },
  { table: 'seasonal_season', columns: SEASONAL_SEASON_COLUMNS, key: ['season'] },
  { table: 'seasonal_flight', columns: SEASONAL_FLIGHT_COLUMNS, key: ['season', 'seq'] },
];

/** Cells as the row reads back: jsonb parsed (the cells carry it as JSON text). */
function rowOf(columns: readonly ColumnSpec[], cells: readonly CellValue[]): DbRow {
  const out: DbRow = {};
  columns.forEach((c, i) => {
    const v = cells[i] ?? null;
    out[c.name] = c.type === 'jsonb' && typeof v === 'string' ? JSON.parse(v) : v;
  });
  return out;
}

/** The rows the fold implies, per table. */
function implied(pending: PendingReference): Map<TableSpec['table'], DbRow[]> {
  const records: DbRow[] = [];
  for (const r of pending.records.values()) if (!('deleted' in r)) records.push(rowOf(REFERENCE_RECORD_COLUMNS, recordCells(r)));
  const seasons = [...pending.seasons.values()];
  return new Map<TableSpec['table'], DbRow[]>([
    ['reference_record', records],
    ['seasonal_season', seasons.map((s) => rowOf(SEASONAL_SEASON_COLUMNS, seasonCells(s)))],
    ['seasonal_flight', seasons.flatMap((s) => seasonalFlightCells(s).map((cells) => rowOf(SEASONAL_FLIGHT_COLUMNS, cells)))],
  ]);
}

export async function checkReference(q: Queryable, pending: PendingReference): Promise<{ records: number; mismatches: Mismatch[] }> {
  const want = implied(pending);
  const mismatches: Mismatch[] = [];
  let records = 0;
  for (const spec of TABLES) {
    const keyOf = (r: DbRow) => spec.key.map((k) => String(r[k])).join('/');
    const { rows } = await q.query<DbRow>(`SELECT ${selectList(spec.columns)} FROM ${spec.table}`);
    const present = new Map(rows.map((r) => [keyOf(r), r]));
    const expected = want.get(spec.table) ?? [];
    records += expected.length;
    for (const w of expected) {
      const key = keyOf(w);
      const row = present.get(key);
      present.delete(key);
      if (row === undefined) {
        mismatches.push({ check: 'reference', table: spec.table, key, problem: 'missing-row' });
        continue;
      }
      for (const c of spec.columns) {
        const log = w[c.name] ?? null;
        const found = row[c.name] ?? null;
        if (log !== found && !sameValue(log, found)) mismatches.push({ check: 'reference', table: spec.table, key, column: c.name, log, row: found });
      }
    }
    for (const key of present.keys()) mismatches.push({ check: 'reference', table: spec.table, key, problem: 'not-in-log' });
  }
  return { records, mismatches };
}
