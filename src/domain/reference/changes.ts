/**
 * Semantic changes of reference-data and seasonal-schedule decisions (reference.md). Like flight
 * changes they are stored in decision_event.payload and folded again on rebuild.
 */
import type { RefFields } from './record.ts';
import type { ReferenceStyp, SeasonalStyp } from './kinds.ts';

/** The record (kind, code) now holds exactly `fields` (ADD, UPD merged, DNLD/RESP). */
export interface ReferenceUpserted {
  type: 'ReferenceUpserted';
  kind: string;
  code: string;
  fields: RefFields;
}

/** `del`: a DEL message; `snapshot`: a DNLD/RESP of the kind did not hold it. */
export interface ReferenceDeleted {
  type: 'ReferenceDeleted';
  kind: string;
  code: string;
  reason: 'del' | 'snapshot';
}

/** Summary of a DNLD/RESP of one kind: one per message, also when nothing changed. */
export interface ReferenceSnapshotApplied {
  type: 'ReferenceSnapshotApplied';
  kind: string;
  stype: Extract<ReferenceStyp, 'DNLD' | 'RESP'>;
  /** Records with a key in the message. */
  records: number;
  /** RECS as sent (a hint only), null when absent. */
  declaredRecords: number | null;
  /** New or changed records. */
  upserted: number;
  unchanged: number;
  deleted: number;
  /** Records without their key. */
  skipped: number;
  /** True when the message held no record: nothing was replaced. */
  empty: boolean;
}

/** One planned flight of a season (SCHS FLTR). */
export interface SeasonalFlight {
  /** 1-based place of the record in the message (its key within the season). */
  seq: number;
  airline: string | null;
  flightNo: string | null;
  direction: 'A' | 'D' | null;
  serviceType: string | null;
  flightNature: string | null;
  aircraftType: string | null;
  terminal: string | null;
  maxPassengers: number | null;
  /** YYYY-MM-DD */
  validFrom: string;
  validTo: string;
  /** 7 characters Monday…Sunday: the day's digit where it operates, 0 where not. */
  daysOfOperation: string;
  /** HHmm local, as sent. */
  scheduledTime: string | null;
  route: SeasonalRoutePoint[];
  linkedAirline: string | null;
  linkedFlightNo: string | null;
  /** Every element of the record (as reference records keep them). */
  fields: RefFields;
}

export interface SeasonalRoutePoint {
  seq: number;
  airport: string | null;
  /** HHmm local, as sent. */
  scheduledArrival: string | null;
  scheduledDeparture: string | null;
  /** SADC/SDDC as sent (`+1`, `-1`, `0`). */
  dayOffset: string | null;
}

/** A SCHS DNLD/RESP: the season's records are exactly `flights` (other seasons untouched). */
export interface SeasonalScheduleReplaced {
  type: 'SeasonalScheduleReplaced';
  stype: SeasonalStyp;
  season: string;
  /** SDAT/EDAT as YYYY-MM-DD, null when absent. */
  startDate: string | null;
  endDate: string | null;
  flights: SeasonalFlight[];
  /** Records skipped (invalid period or DYOP). */
  skipped: number;
}

export type ReferenceChange = ReferenceUpserted | ReferenceDeleted | ReferenceSnapshotApplied | SeasonalScheduleReplaced;
export type ReferenceChangeType = ReferenceChange['type'];

export const REFERENCE_CHANGE_TYPES: ReadonlySet<string> = new Set<ReferenceChangeType>([
  'ReferenceUpserted', 'ReferenceDeleted', 'ReferenceSnapshotApplied', 'SeasonalScheduleReplaced',
]);

export function isReferenceChange(change: { type: string }): change is ReferenceChange {
  return REFERENCE_CHANGE_TYPES.has(change.type);
}
