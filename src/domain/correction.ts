/**
 * correctionChanges: the changes that bring a flight from the state the log holds to the state a
 * re-decision reached (docs/contract/design.md §10, `msgx redecide --apply`). Pure. Folding them with `evolve`
 * onto `before` gives `after` in every field, list and deletion mark (the envelope stamps —
 * version, last position — move as for any decision).
 *
 *   - no `after` (the re-decision never has this flight): FlightsArchived of it, as the history
 *     sweep removes a flight;
 *   - no `before`, or another operation day (a flight's operation day never changes by a message,
 *     invariant 9; a corrected zone or rule can move it): the flight leaves and comes back created
 *     with the re-decided fields and lists;
 *   - otherwise FlightRestored (if it comes back), FlightUpdated with the differing fields, one
 *     `…Replaced` per differing list, FlightDeleted (if it goes or its reason changes).
 */
import { listReplaced, type Change } from './changes.ts';
import type { DeleteReason } from './changes.ts';
import { FIELD_NAMES, fieldsOf } from './fields.ts';
import type { FlightFields, FlightState } from './flight.ts';
import { LIST_NAMES, copyItems, copyLists, sameValue } from './lists.ts';

export function correctionChanges(before: FlightState | undefined, after: FlightState | undefined): Change[] {
  if (after === undefined) {
    return before === undefined ? [] : [{ type: 'FlightsArchived', flids: [before.flid], beforeDay: before.operationDay }];
  }
  const out: Change[] = [];
  if (before === undefined || before.operationDay !== after.operationDay) {
    if (before !== undefined) out.push({ type: 'FlightsArchived', flids: [before.flid], beforeDay: before.operationDay });
    out.push({ type: 'FlightCreated', flid: after.flid, operationDay: after.operationDay, fields: fieldsOf(after), lists: copyLists(after) });
    if (after.deleted) out.push(deleted(after));
    return out;
  }
  if (before.deleted && !after.deleted) out.push({ type: 'FlightRestored', flid: after.flid });
  const fields: Partial<Record<keyof FlightFields, unknown>> = {};
  let anyField = false;
  for (const name of FIELD_NAMES) {
    if (!sameValue(before[name] ?? null, after[name] ?? null)) {
      fields[name] = after[name] ?? null;
      anyField = true;
    }
  }
  if (anyField) out.push({ type: 'FlightUpdated', flid: after.flid, fields: fields as Partial<FlightFields> });
  for (const list of LIST_NAMES) {
    if (!sameValue(before[list], after[list])) out.push(listReplaced(list, after.flid, copyItems<object>(after[list]) as FlightState[typeof list]));
  }
  if (after.deleted && (!before.deleted || before.deletedReason !== after.deletedReason)) out.push(deleted(after));
  return out;
}

function deleted(s: FlightState): Change {
  return { type: 'FlightDeleted', flid: s.flid, reason: (s.deletedReason ?? 'fdel') as DeleteReason };
}
