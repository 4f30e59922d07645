/**
 * Detail lists of many flights at once: one statement per detail table (`flid = ANY($1)`), rows
 * mapped by the projection's own FlightState↔rows mapping and put in the contract's order
 * (allocations, bridges, chocks and route points by seq; delays and services by (start, code)).
 */
import type { FlightLists, ListName } from '../../domain/flight.ts';
import { emptyLists, orderList } from '../../domain/lists.ts';
import type { Queryable } from '../../platform/db.ts';
import { addDetailRow, DETAIL_SPECS, selectList, type DbRow, type DetailTable } from '../../readModel/flightRows.ts';
import { LIVE_TABLES } from '../../readModel/flightTables.ts';

/** The lists stored in `table` for each of `flids` that has rows (other lists stay empty). */
export async function selectDetailLists(q: Queryable, table: DetailTable, flids: readonly string[]): Promise<Map<string, FlightLists>> {
  const spec = DETAIL_SPECS.find((s) => s.table === table)!;
  const { rows } = await q.query<DbRow>(
    `SELECT ${selectList(spec.columns)} FROM ${LIVE_TABLES.detail[table]} WHERE flid = ANY($1::bigint[])`,
    [flids],
  );
  const out = new Map<string, FlightLists>();
  for (const row of rows) {
    const flid = String(row.flid);
    let lists = out.get(flid);
    if (!lists) out.set(flid, (lists = emptyLists()));
    addDetailRow(lists, spec, row);
  }
  for (const lists of out.values()) {
    for (const name of spec.lists) (lists as Record<ListName, unknown>)[name] = orderList(name, lists[name]);
  }
  return out;
}
