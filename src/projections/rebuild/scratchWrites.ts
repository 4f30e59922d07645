/**
 * How the rebuild writes flights into its scratch tables (docs/projections.md "Rebuild", step 3).
 * A flight this rebuild has not written yet has no row there (the tables start empty), so it is
 * loaded with `COPY … FROM STDIN` (src/platform/copyIn.ts): no DELETE of detail rows, no
 * ON CONFLICT, and PostgreSQL parses no array literals. A flight written before (written behind and
 * touched again, or changed in the tail) is written as the live projector writes it
 * (writeFlights.ts: its detail rows replaced, its flight_schd row upserted). The rows are the same
 * either way: the same row builders, and the same texts read by the same input functions.
 */
import type { FlightState } from '../../domain/flight.ts';
import { copyIn, copyText, type CopyPart } from '../../platform/copyIn.ts';
import type { PoolClient } from '../../platform/db.ts';
import { columnNames, type CellValue } from '../../platform/sqlBatch.ts';
import { DETAIL_SPECS, detailRows } from '../../readModel/flightRows.ts';
import type { FlightTables } from '../../readModel/flightTables.ts';
import { ROW_COLUMNS, flightRowWithDoc, writeFlights } from '../writeFlights.ts';

export class ScratchWrites {
  /** Every flid written into the scratch tables so far (removed ones too: a later write then replaces, which is always right). */
  private readonly written = new Set<string>();
  /** Rows were written that this object did not see (the fold workers'): every flight may have rows. */
  private unknown = false;

  /** Others write into the scratch tables (the fold workers): from now on every flight is replaced, never copied. */
  othersWrite(): void {
    this.unknown = true;
  }

  /** A FlightWriter (flightFold.ts) for the scratch tables. */
  readonly write = async (c: PoolClient, tables: FlightTables, flights: readonly FlightState[]): Promise<void> => {
    const fresh: FlightState[] = [];
    const again: FlightState[] = [];
    for (const f of flights) (this.unknown || this.written.has(f.flid) ? again : fresh).push(f);
    for (const f of fresh) this.written.add(f.flid);
    // One after the other: node-postgres queues at most one query behind a running one without a warning.
    if (fresh.length > 0) await copyFlights(c, tables, fresh);
    if (again.length > 0) await writeFlights(c, tables, again, 'all');
  };
}

/**
 * Copy flights that have no rows in `tables` yet: their flight_schd rows, then each detail table's
 * rows, one COPY per table, all in one query on `c` (they run in this order: the detail rows'
 * foreign keys, once the scratch tables have them, find their flights).
 */
export function copyFlights(c: PoolClient, tables: FlightTables, flights: readonly FlightState[]): Promise<number> {
  const parts: CopyPart[] = [{ target: `${tables.flight} (${columnNames(ROW_COLUMNS)})`, data: copyText(flights.map(flightRowWithDoc), ROW_COLUMNS) }];
  for (const spec of DETAIL_SPECS) {
    const rows: CellValue[][] = [];
    for (const f of flights) for (const r of detailRows(spec, f)) rows.push(r);
    if (rows.length > 0) parts.push({ target: `${tables.detail[spec.table]} (${columnNames(spec.columns)})`, data: copyText(rows, spec.columns) });
  }
  return copyIn(c, parts);
}
