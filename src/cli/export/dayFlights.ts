import type { FlightState } from '../../domain/flight.ts';
import { byFlid } from '../../domain/flightExport.ts';
import type { Queryable } from '../../platform/db.ts';
import { loadFlights } from '../../projections/loadFlights.ts';

/** Every flight of the read model whose operation day is `day` (deleted ones too), in flid order. */
export async function dayFlights(q: Queryable, day: string): Promise<FlightState[]> {
  const { rows } = await q.query<{ flid: string }>('SELECT flid::text FROM flight_schd WHERE operation_day = $1::date', [day]);
  const flights = await loadFlights(q, rows.map((r) => r.flid));
  return [...flights.values()].sort(byFlid);
}

/** `--day` must be a calendar date YYYY-MM-DD. */
export function isDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}
