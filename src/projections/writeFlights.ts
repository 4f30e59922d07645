/**
 * Write whole flights into the read-model tables: upsert their flight_schd rows, replace all their
 * detail rows, and physically remove archived flights with their detail rows.
 * Every statement is a batch over unnest arrays, so the cost per statement, not per row, dominates;
 * a chunk of flights is therefore at most two statements (docs/projections.md "Flight projector"):
 * one that deletes the detail rows of the flights that may have some, one that upserts the
 * flights and inserts all their detail rows (data-modifying CTEs). Deleting and inserting stay two
 * statements: the CTEs of one statement run in no fixed order, and flight_delay has a unique key.
 */
import type { FlightState } from '../domain/flight.ts';
import { pushAll } from '../platform/arrays.ts';
import type { Queryable } from '../platform/db.ts';
import { DETAIL_SPECS, FLIGHT_COLUMNS, detailRows, flightRow } from '../readModel/flightRows.ts';
import { DOC_VERSION, flightDoc } from '../readModel/flightDoc.ts';
import type { FlightTables } from '../readModel/flightTables.ts';
import { columnLiterals, columnNames, unnestOf, type CellValue, type ColumnSpec } from '../platform/sqlBatch.ts';

/** The row's columns and, beside them, the flight's document (readModel/flightDoc.ts, migrations 170 and 310: json). */
export const ROW_COLUMNS: readonly ColumnSpec[] = [...FLIGHT_COLUMNS, { name: 'doc', type: 'json' }, { name: 'doc_version', type: 'integer' }];

/** A flight's flight_schd row in ROW_COLUMNS order: its columns, its document's JSON text and the document version. */
export function flightRowWithDoc(f: FlightState): CellValue[] {
  const row = flightRow(f);
  row.push(JSON.stringify(flightDoc(f)), DOC_VERSION);
  return row;
}

const FLIGHT_UPDATE_SET = ROW_COLUMNS.filter((c) => c.name !== 'flid')
  .map((c) => `${c.name} = EXCLUDED.${c.name}`)
  .join(', ');

/**
 * Remove archived flights: their detail rows, then their flight_schd rows. The detail rows are
 * deleted here rather than left to ON DELETE CASCADE because a rebuild's scratch tables get their
 * foreign keys only after the bulk write (rebuild/scratchTables.ts).
 */
export async function removeFlights(q: Queryable, tables: FlightTables, flids: readonly string[]): Promise<void> {
  if (flids.length === 0) return;
  await q.query(deleteDetails(tables), [flids]);
  await q.query(`DELETE FROM ${tables.flight} WHERE flid = ANY($1::bigint[])`, [flids]);
}

/**
 * Which of the flights being written may already have rows: `all` (a rebuild's scratch tables, a
 * test), or the flids read from the tables before the batch (the live projector loads every flight
 * it touches). A flight with no flight_schd row has no detail rows (their foreign key), so it needs
 * no DELETE: a plan snapshot of new flights is written with inserts only.
 */
export type StoredFlights = 'all' | ReadonlySet<string>;

export async function writeFlights(q: Queryable, tables: FlightTables, flights: readonly FlightState[], stored: StoredFlights = 'all'): Promise<void> {
  if (flights.length === 0) return;
  const replaced = flights.filter((f) => stored === 'all' || stored.has(f.flid)).map((f) => f.flid);
  if (replaced.length > 0) await q.query(deleteDetails(tables), [replaced]);
  const sql: string[] = [];
  const params: unknown[] = [];
  /** One `INSERT … SELECT * FROM ROWS FROM (unnest…)` over `rows`, its parameters numbered after those already taken. */
  const insert = (table: string, columns: readonly ColumnSpec[], rows: readonly (readonly CellValue[])[], tail = ''): string => {
    const text = `INSERT INTO ${table} (${columnNames(columns)}) SELECT * FROM ${unnestOf(columns, params.length + 1)}${tail}`;
    pushAll(params, columnLiterals(rows, columns));
    return text;
  };
  sql.push(insert(tables.flight, ROW_COLUMNS, flights.map(flightRowWithDoc), ` ON CONFLICT (flid) DO UPDATE SET ${FLIGHT_UPDATE_SET}`));
  for (const spec of DETAIL_SPECS) {
    const rows: CellValue[][] = [];
    for (const f of flights) for (const r of detailRows(spec, f)) rows.push(r);
    if (rows.length > 0) sql.push(insert(tables.detail[spec.table], spec.columns, rows));
  }
  // The detail rows' foreign keys are checked at the end of the statement, when the flights are in.
  const last = sql.pop()!;
  const ctes = sql.map((s, i) => `w${i} AS (${s})`);
  await q.query(ctes.length > 0 ? `WITH ${ctes.join(', ')} ${last}` : last, params);
}

/** One DELETE of the detail rows of `$1` flids per detail table, as one statement. */
function deleteDetails(tables: FlightTables): string {
  const deletes = DETAIL_SPECS.map((spec) => `DELETE FROM ${tables.detail[spec.table]} WHERE flid = ANY($1::bigint[])`);
  const last = deletes.pop()!;
  return `WITH ${deletes.map((s, i) => `d${i} AS (${s})`).join(', ')} ${last}`;
}
