import type { FlightState } from '../domain/flight.ts';
import { byFlid } from '../domain/flightExport.ts';
import type { Queryable } from '../platform/db.ts';
import { loadFlights } from './loadFlights.ts';

/** Every flight of the read model whose operation day is `day` (deleted ones too), in flid order: `msgx export` and `msgx compare`. */
export async function dayFlights(q: Queryable, day: string): Promise<FlightState[]> {
  const { rows } = await q.query<{ flid: string }>('SELECT flid::text FROM flight_schd WHERE operation_day = $1::date', [day]);
  const flights = await loadFlights(q, rows.map((r) => r.flid));
  return [...flights.values()].sort(byFlid);
}
