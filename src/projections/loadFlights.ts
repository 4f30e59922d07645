/**
 * Read whole flights (flight_schd + detail rows) back into FlightState: one statement per table
 * for any number of flights. The live flight projector loads the flights a batch touches with it;
 * the read API may use it for boards (a bounded number of statements, no N+1).
 */
import type { FlightState } from '../domain/flight.ts';
import type { Queryable } from '../platform/db.ts';
import { DETAIL_SPECS, FLIGHT_COLUMNS, flightsFromRows, selectList, type DbRow, type DetailTable } from '../readModel/flightRows.ts';
import { LIVE_TABLES, type FlightTables } from '../readModel/flightTables.ts';

export async function loadFlights(
  q: Queryable,
  flids: readonly string[],
  tables: FlightTables = LIVE_TABLES,
): Promise<Map<string, FlightState>> {
  if (flids.length === 0) return new Map();
  const { rows } = await q.query<DbRow>(
    `SELECT ${selectList(FLIGHT_COLUMNS)} FROM ${tables.flight} WHERE flid = ANY($1::bigint[])`,
    [flids],
  );
  if (rows.length === 0) return new Map();
  const present = rows.map((r) => String(r.flid));
  const details = new Map<DetailTable, DbRow[]>();
  for (const spec of DETAIL_SPECS) {
    const res = await q.query<DbRow>(
      `SELECT ${selectList(spec.columns)} FROM ${tables.detail[spec.table]} WHERE flid = ANY($1::bigint[])`,
      [present],
    );
    details.set(spec.table, res.rows);
  }
  return flightsFromRows(rows, details);
}

/** Which of `flids` have a flight_schd row (the live projector's flights it did not read back, flightProjector.ts). */
export async function storedFlids(q: Queryable, flids: readonly string[], tables: FlightTables = LIVE_TABLES): Promise<string[]> {
  if (flids.length === 0) return [];
  const { rows } = await q.query<{ flid: string }>(`SELECT flid::text AS flid FROM ${tables.flight} WHERE flid = ANY($1::bigint[])`, [flids]);
  return rows.map((r) => r.flid);
}
