/**
 * A change as it leaves msgx (the Kafka `msg` record, its NDJSON line): the same shape as in the
 * log, with every instant shown as the GraphQL API shows it — airport local time with its offset
 * (interface.md: "every outward time carries the airport offset, and Kafka and NDJSON payloads
 * match the API"). The log keeps UTC; this is a rendering, never folded back.
 */
import { isListReplaced, listOf, type Change } from './changes.ts';
import type { FieldName, FlightFields, FlightLists, ListName } from './flight.ts';
import { ITEM_TIMES, renderer, type Render } from './flightView.ts';

/**
 * The fields that hold instants: exactly those `toFlightView` renders in a zone (a unit test
 * holds the two together).
 */
export const INSTANT_FIELDS: ReadonlySet<FieldName> = new Set<FieldName>([
  'scheduledTime', 'estimatedTime', 'actualTime', 'prevActualDeparture', 'boardingOpen', 'lastCall', 'boardingClosed',
  'cancelTime', 'eobt', 'tobt', 'cobt', 'ctot', 'iest', 'appt', 'egsr', 'egst', 'prevEstimatedDeparture',
  'nextEstimatedArrival', 'nextActualArrival', 'portTime',
]);

function fieldsIn<F extends Partial<FlightFields>>(fields: F, t: Render): F {
  const out: Record<string, unknown> = { ...fields };
  for (const name of Object.keys(fields) as FieldName[]) {
    if (INSTANT_FIELDS.has(name)) out[name] = t(fields[name] as string | null);
  }
  return out as F;
}

function itemsIn<L extends ListName>(list: L, items: FlightLists[L], t: Render): FlightLists[L] {
  const item = ITEM_TIMES[list](t) as (x: FlightLists[L][number]) => FlightLists[L][number];
  return (items as FlightLists[L][number][]).map(item) as FlightLists[L];
}

function listsIn(lists: FlightLists, t: Render): FlightLists {
  const out: Record<string, unknown> = { ...lists };
  for (const list of Object.keys(lists) as ListName[]) out[list] = itemsIn(list, lists[list], t);
  return out as unknown as FlightLists;
}

/** `change` with its instants shown in `tz` (with offset); a new object, `change` is not touched. */
export function toChangeView(change: Change, tz: string): Change {
  const shown = renderer(tz);
  // A change read back from the log is JSON: tolerate a missing instant rather than fail on it.
  const t: Render = (v) => (typeof v === 'string' ? shown(v) : v);
  if (isListReplaced(change)) return { ...change, items: itemsIn(listOf(change), change.items, t) } as Change;
  switch (change.type) {
    case 'FlightCreated':
      return { ...change, fields: fieldsIn(change.fields, t), lists: listsIn(change.lists, t) };
    case 'FlightUpdated':
      return { ...change, fields: fieldsIn(change.fields, t) };
    case 'PlanSnapshotApplied':
      return { ...change, windowStart: t(change.windowStart), windowEnd: t(change.windowEnd) };
    case 'PlanRequested':
      return { ...change, windowStart: t(change.windowStart)!, windowEnd: t(change.windowEnd)! };
    default:
      // FlightDeleted, FlightRestored, FlightsArchived and reference data carry no instant.
      return change;
  }
}
