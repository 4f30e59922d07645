/**
 * Where the flight projection's tables live. The live projection writes `public`; a rebuild
 * writes a scratch copy in schema `msgx_rebuild` and then swaps it in (rebuild/switchTables.ts).
 * Schema and table names are constants, never input, so they may appear in SQL text.
 */
import { DETAIL_TABLES, FLIGHT_TABLE, type DetailTable } from './flightRows.ts';

export type FlightSchema = 'public' | 'msgx_rebuild';

export const SNAP_LOG_TABLE = 'schd_snap_log';

/** Every table the flight projector owns, parents before children. */
export const FLIGHT_PROJECTION_TABLES = [FLIGHT_TABLE, ...DETAIL_TABLES, SNAP_LOG_TABLE] as const;
export type FlightProjectionTable = (typeof FLIGHT_PROJECTION_TABLES)[number];

export interface FlightTables {
  readonly schema: FlightSchema;
  readonly flight: string;
  readonly detail: Readonly<Record<DetailTable, string>>;
  readonly snapLog: string;
}

export function flightTables(schema: FlightSchema): FlightTables {
  const q = (t: string) => `${schema}.${t}`;
  return Object.freeze({
    schema,
    flight: q(FLIGHT_TABLE),
    detail: Object.freeze(Object.fromEntries(DETAIL_TABLES.map((t) => [t, q(t)])) as Record<DetailTable, string>),
    snapLog: q(SNAP_LOG_TABLE),
  });
}

export const LIVE_TABLES = flightTables('public');
