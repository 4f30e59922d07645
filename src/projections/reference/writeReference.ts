/**
 * Writes the reference projector's rows: reference_record upserts and deletes, and per season
 * the whole seasonal_flight set plus its seasonal_season row. A few statements per batch,
 * whatever its size (ROWS FROM unnest, src/platform/sqlBatch.ts).
 */
import type { Queryable } from '../../platform/db.ts';
import { columnArrays, unnestOf, type CellValue, type ColumnSpec } from '../../platform/sqlBatch.ts';
import type { PendingReference, RecordRow, SeasonWrite } from './referenceFold.ts';

const RECORD_COLUMNS: readonly ColumnSpec[] = [
  { name: 'kind', type: 'text' }, { name: 'code', type: 'text' }, { name: 'fields', type: 'jsonb' },
  { name: 'name', type: 'text' }, { name: 'name_local', type: 'text' }, { name: 'last_position', type: 'bigint' },
  { name: 'last_msg_id', type: 'bigint' }, { name: 'updated_at', type: 'timestamptz' },
];

const FLIGHT_COLUMNS: readonly ColumnSpec[] = [
  { name: 'season', type: 'text' }, { name: 'seq', type: 'integer' }, { name: 'airline', type: 'text' },
  { name: 'flight_no', type: 'text' }, { name: 'direction', type: 'text' }, { name: 'service_type', type: 'text' },
  { name: 'flight_nature', type: 'text' }, { name: 'aircraft_type', type: 'text' }, { name: 'terminal', type: 'text' },
  { name: 'max_passengers', type: 'integer' }, { name: 'valid_from', type: 'date' }, { name: 'valid_to', type: 'date' },
  { name: 'days_of_operation', type: 'text' }, { name: 'scheduled_time', type: 'text' }, { name: 'route', type: 'jsonb' },
  { name: 'linked_airline', type: 'text' }, { name: 'linked_flight_no', type: 'text' }, { name: 'fields', type: 'jsonb' },
  { name: 'last_position', type: 'bigint' }, { name: 'last_msg_id', type: 'bigint' }, { name: 'updated_at', type: 'timestamptz' },
];

const SEASON_COLUMNS: readonly ColumnSpec[] = [
  { name: 'season', type: 'text' }, { name: 'start_date', type: 'date' }, { name: 'end_date', type: 'date' },
  { name: 'flights', type: 'integer' }, { name: 'skipped', type: 'integer' }, { name: 'last_position', type: 'bigint' },
  { name: 'last_msg_id', type: 'bigint' }, { name: 'updated_at', type: 'timestamptz' },
];

/** The reference_record row of a folded record, in RECORD_COLUMNS order (also read by the consistency check). */
export const recordCells = (r: RecordRow): CellValue[] => [
  r.kind, r.code, JSON.stringify(r.fields), r.name, r.nameLocal, r.position, r.msgId, r.recordedAt,
];

/** The seasonal_flight rows of a season, in FLIGHT_COLUMNS order. */
export const seasonalFlightCells = (s: SeasonWrite): CellValue[][] =>
  s.change.flights.map((f) => [
    s.change.season, f.seq, f.airline, f.flightNo, f.direction, f.serviceType, f.flightNature, f.aircraftType, f.terminal,
    f.maxPassengers, f.validFrom, f.validTo, f.daysOfOperation, f.scheduledTime, JSON.stringify(f.route),
    f.linkedAirline, f.linkedFlightNo, JSON.stringify(f.fields), s.position, s.msgId, s.recordedAt,
  ]);

/** The seasonal_season row of a season, in SEASON_COLUMNS order. */
export const seasonCells = (s: SeasonWrite): CellValue[] => [
  s.change.season, s.change.startDate, s.change.endDate, s.change.flights.length, s.change.skipped, s.position, s.msgId, s.recordedAt,
];

export {
  RECORD_COLUMNS as REFERENCE_RECORD_COLUMNS, FLIGHT_COLUMNS as SEASONAL_FLIGHT_COLUMNS, SEASON_COLUMNS as SEASONAL_SEASON_COLUMNS,
};

const names = (cols: readonly ColumnSpec[]): string => cols.map((c) => c.name).join(', ');
const updates = (cols: readonly ColumnSpec[], key: readonly string[]): string =>
  cols.filter((c) => !key.includes(c.name)).map((c) => `${c.name} = EXCLUDED.${c.name}`).join(', ');

export async function writeReference(q: Queryable, pending: PendingReference): Promise<void> {
  const upserts: RecordRow[] = [];
  const deletes: { kind: string; code: string }[] = [];
  for (const r of pending.records.values()) {
    if ('deleted' in r) deletes.push(r);
    else upserts.push(r);
  }
  if (deletes.length > 0) {
    await q.query(
      'DELETE FROM reference_record r USING ROWS FROM (unnest($1::text[]), unnest($2::text[])) AS d(kind, code) WHERE r.kind = d.kind AND r.code = d.code',
      [deletes.map((d) => d.kind), deletes.map((d) => d.code)],
    );
  }
  if (upserts.length > 0) {
    const rows: CellValue[][] = upserts.map(recordCells);
    await q.query(
      `INSERT INTO reference_record (${names(RECORD_COLUMNS)}) SELECT * FROM ${unnestOf(RECORD_COLUMNS)}
       ON CONFLICT (kind, code) DO UPDATE SET ${updates(RECORD_COLUMNS, ['kind', 'code'])}`,
      columnArrays(rows, RECORD_COLUMNS),
    );
  }
  if (pending.seasons.size === 0) return;
  const seasons = [...pending.seasons.values()];
  await q.query('DELETE FROM seasonal_flight WHERE season = ANY($1::text[])', [seasons.map((s) => s.change.season)]);
  const flightRows: CellValue[][] = seasons.flatMap(seasonalFlightCells);
  if (flightRows.length > 0) {
    await q.query(
      `INSERT INTO seasonal_flight (${names(FLIGHT_COLUMNS)}) SELECT * FROM ${unnestOf(FLIGHT_COLUMNS)}`,
      columnArrays(flightRows, FLIGHT_COLUMNS),
    );
  }
  const seasonRows: CellValue[][] = seasons.map(seasonCells);
  await q.query(
    `INSERT INTO seasonal_season (${names(SEASON_COLUMNS)}) SELECT * FROM ${unnestOf(SEASON_COLUMNS)}
     ON CONFLICT (season) DO UPDATE SET ${updates(SEASON_COLUMNS, ['season'])}`,
    columnArrays(seasonRows, SEASON_COLUMNS),
  );
}
