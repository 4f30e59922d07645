/**
 * Write whole flights into the read-model tables: upsert their flight_schd rows, replace all their
 * detail rows, and physically remove archived flights with their detail rows.
 * Every statement is a batch over unnest arrays, so the cost per statement, not per row, dominates.
 */
import type { FlightState } from '../domain/flight.ts';
import type { Queryable } from '../platform/db.ts';
import { DETAIL_SPECS, FLIGHT_COLUMNS, detailRows, flightRow } from '../readModel/flightRows.ts';
import { DOC_VERSION, flightDoc } from '../readModel/flightDoc.ts';
import type { FlightTables } from '../readModel/flightTables.ts';
import { columnArrays, columnNames, unnestOf, type ColumnSpec } from '../platform/sqlBatch.ts';

/** The row's columns and, beside them, the flight's document (readModel/flightDoc.ts, migrations 170 and 310: json). */
const ROW_COLUMNS: readonly ColumnSpec[] = [...FLIGHT_COLUMNS, { name: 'doc', type: 'json' }, { name: 'doc_version', type: 'integer' }];

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
  for (const spec of DETAIL_SPECS) await q.query(`DELETE FROM ${tables.detail[spec.table]} WHERE flid = ANY($1::bigint[])`, [flids]);
  await q.query(`DELETE FROM ${tables.flight} WHERE flid = ANY($1::bigint[])`, [flids]);
}

export async function writeFlights(q: Queryable, tables: FlightTables, flights: readonly FlightState[]): Promise<void> {
  if (flights.length === 0) return;
  await q.query(
    `INSERT INTO ${tables.flight} (${columnNames(ROW_COLUMNS)})
     SELECT * FROM ${unnestOf(ROW_COLUMNS)}
     ON CONFLICT (flid) DO UPDATE SET ${FLIGHT_UPDATE_SET}`,
    columnArrays(flights.map((f) => [...flightRow(f), JSON.stringify(flightDoc(f)), DOC_VERSION]), ROW_COLUMNS),
  );
  const flids = flights.map((f) => f.flid);
  for (const spec of DETAIL_SPECS) {
    const table = tables.detail[spec.table];
    await q.query(`DELETE FROM ${table} WHERE flid = ANY($1::bigint[])`, [flids]);
    const rows = flights.flatMap((f) => detailRows(spec, f));
    if (rows.length === 0) continue;
    await q.query(
      `INSERT INTO ${table} (${columnNames(spec.columns)}) SELECT * FROM ${unnestOf(spec.columns)}`,
      columnArrays(rows, spec.columns),
    );
  }
}
