/**
 * Flight check: the fold of the log against the read-model rows, read back through the one row
 * mapping (flightsFromRows) and compared by GraphQL field and list name (flightDiff, on
 * toFlightView) — so a column, table or list added to the mapping and the view is checked without
 * a change here. Lists are compared whole; the report adds the items only one side has (a missing
 * or an extra detail row).
 */
import { flightDiff } from '../domain/flightDiff.ts';
import type { FlightState } from '../domain/flight.ts';
import { compareFlids } from '../domain/flid.ts';
import { sameValue } from '../domain/lists.ts';
import type { Queryable } from '../platform/db.ts';
import { DETAIL_SPECS, FLIGHT_COLUMNS, flightsFromRows, selectList, type DbRow, type DetailTable } from '../readModel/flightRows.ts';
import { LIVE_TABLES } from '../readModel/flightTables.ts';
import type { Mismatch } from './report.ts';

/**
 * The read-model rows of some flights (undefined: all of them), one statement per table, read
 * back into flight states by the one row mapping (flightsFromRows). Every column and detail table
 * of the mapping is read, so what the mapping gains is checked too.
 */
export async function loadRows(q: Queryable, flids: readonly string[] | undefined): Promise<Map<string, FlightState>> {
  if (flids !== undefined && flids.length === 0) return new Map();
  const where = flids === undefined ? '' : ' WHERE flid = ANY($1::bigint[])';
  const params = flids === undefined ? [] : [flids];
  const { rows } = await q.query<DbRow>(`SELECT ${selectList(FLIGHT_COLUMNS)} FROM ${LIVE_TABLES.flight}${where}`, params);
  const details = new Map<DetailTable, DbRow[]>();
  for (const spec of DETAIL_SPECS) {
    const res = await q.query<DbRow>(`SELECT ${selectList(spec.columns)} FROM ${LIVE_TABLES.detail[spec.table]}${where}`, params);
    details.set(spec.table, res.rows);
  }
  return flightsFromRows(rows, details);
}

/** Items of `a` that `b` lacks, counting repeats. */
function minus(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  const rest = [...b];
  const out: unknown[] = [];
  for (const x of a) {
    const i = rest.findIndex((y) => sameValue(x, y));
    if (i < 0) out.push(x);
    else rest.splice(i, 1);
  }
  return out;
}

/** Mismatches of one flight: `log` is the fold, `row` what the tables hold. */
export function compareFlight(flid: string, log: FlightState | undefined, row: FlightState | undefined): Mismatch[] {
  if (log === undefined && row === undefined) return [];
  if (row === undefined) return [{ check: 'flights', flid, problem: 'missing-row' }];
  if (log === undefined) return [{ check: 'flights', flid, problem: 'not-in-log' }];
  // Equal states have equal views: only a flight that differs is rendered and diffed (for its names).
  if (sameValue(log, row)) return [];
  const d = flightDiff(log, row);
  const out: Mismatch[] = [];
  for (const [field, v] of Object.entries(d.fields)) out.push({ check: 'flights', flid, field, log: v.before, row: v.after });
  for (const [list, v] of Object.entries(d.lists)) {
    out.push({ check: 'flights', flid, list, log: v.before, row: v.after, missing: minus(v.before, v.after), extra: minus(v.after, v.before) });
  }
  return out;
}

/** Compare every flight either side has (flids in ascending numeric order). */
export function compareFlights(log: ReadonlyMap<string, FlightState>, rows: ReadonlyMap<string, FlightState>): Mismatch[] {
  const flids = [...new Set([...log.keys(), ...rows.keys()])].sort(compareFlids);
  return flids.flatMap((flid) => compareFlight(flid, log.get(flid), rows.get(flid)));
}
