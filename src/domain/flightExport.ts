/**
 * The read model of a day as an integration team diffs it against the legacy system's output:
 * one record per flight with the GraphQL `Flight` names (via `toFlightView`), flattened into a
 * fixed, documented column order (docs/operations.md "Export and compare"). Pure.
 *
 * Grouped values become dotted columns (`linkedFlight.airline`); detail lists are one column each
 * (a JSON array in CSV). The envelope of the log (stateVersion, lastPosition, lastMsgId, updatedAt)
 * is left out: it tells how msgx got there, not what the flight is, and differs between two
 * installations that agree on every flight.
 */
import type { FlightState } from './flight.ts';
import { toFlightView, type FlightView } from './flightView.ts';

/** The columns, in order. Append new ones at the end: tools may read them by position. */
export const EXPORT_COLUMNS = [
  'flid', 'operationDay', 'ffid', 'airline', 'flightNo', 'direction',
  'scheduledTime', 'estimatedTime', 'actualTime', 'prevActualDeparture',
  'serviceType', 'flightNature', 'aircraftType', 'registration', 'terminal', 'currentStand',
  'linkedFlight.airline', 'linkedFlight.flightNo', 'linkedFlight.flid',
  'masterFlid', 'masterAirline', 'masterFlightNo',
  'boardingOpen', 'lastCall', 'boardingClosed', 'cancelTime', 'cancelled',
  'status', 'publicStatus', 'publicRemark', 'diversionAirport', 'diversionDirection', 'returnType',
  'handlingAgents.passenger', 'handlingAgents.field', 'handlingAgents.maintenance',
  'deleted',
  'stands', 'gates', 'checkInCounters', 'baggageBelts', 'chutes', 'bridges', 'chocks', 'delays', 'services',
  'routePoints', 'adjacentStations',
  // The whole interface (#15), appended.
  'milestones.estimatedOffBlock', 'milestones.targetOffBlock', 'milestones.calculatedOffBlock', 'milestones.calculatedTakeOff',
  'milestones.inboundEstimate', 'milestones.approach', 'milestones.startUpRequest', 'milestones.startUp',
  'milestones.prevEstimatedDeparture', 'milestones.prevActualDeparture', 'milestones.nextEstimatedArrival', 'milestones.nextActualArrival',
  'abnormal.reason', 'abnormal.remark', 'maxPassengers', 'remark', 'runway', 'vip.passengers', 'vip.reserved', 'vipGuests',
  'port.time', 'port.code', 'pushbacks', 'tows',
] as const;

export type ExportColumn = (typeof EXPORT_COLUMNS)[number];
export type ExportRecord = Record<ExportColumn, unknown>;

/** One flight as an export record (instants in `tz` with offset, as GraphQL shows them). */
export function exportRecord(s: FlightState, tz: string): ExportRecord {
  const view = toFlightView(s, { tz }) as unknown as Record<string, unknown>;
  const out = {} as Record<string, unknown>;
  for (const col of EXPORT_COLUMNS) {
    const [head, sub] = col.split('.') as [keyof FlightView & string, string | undefined];
    const v = view[head];
    out[col] = sub === undefined ? (v ?? null) : ((v as Record<string, unknown> | null)?.[sub] ?? null);
  }
  return out as ExportRecord;
}

/** Flights in flid order (numeric): stable across installations, whatever their schedules say. */
export function byFlid(a: FlightState, b: FlightState): number {
  const x = BigInt(a.flid);
  const y = BigInt(b.flid);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. A text that a
 * spreadsheet would read as a formula (it starts with =, +, -, @, a tab or a CR) gets a leading
 * `'` first (OWASP "CSV injection"; docs/security.md §12): the values come from messages, which
 * anyone who can post to the compat entry writes.
 */
export function csvField(v: unknown): string {
  const raw = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const text = typeof v === 'string' && /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(): string {
  return EXPORT_COLUMNS.join(',') + '\r\n';
}

/** One CSV line: null is empty, booleans true/false, lists as JSON arrays. */
export function csvLine(r: ExportRecord): string {
  return EXPORT_COLUMNS.map((c) => csvField(r[c])).join(',') + '\r\n';
}

/** One NDJSON line: the same keys in the same order, lists as arrays. */
export function ndjsonLine(r: ExportRecord): string {
  return JSON.stringify(r) + '\n';
}
