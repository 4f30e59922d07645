/**
 * What a patch actually changes on a flight: the changes to emit so that repeating the same data
 * emits nothing (no version bump).
 */
import { listReplaced, type FlightChange } from '../changes.ts';
import { FIELD_NAMES } from '../fields.ts';
import type { FlightFields, FlightLists, FlightState, ListName } from '../flight.ts';
import { LIST_NAMES, sameValue } from '../lists.ts';
import type { FieldPatch, ListPatch } from '../message.ts';

/** The fields of `patch` whose value differs from `state` (absent keys are not changes). */
export function changedFields(state: FlightFields, patch: FieldPatch): Partial<FlightFields> {
  const out: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) {
    const value = patch[name];
    if (value !== undefined && value !== state[name]) out[name] = value;
  }
  return out as Partial<FlightFields>;
}

export function fieldChanges(state: FlightState, patch: FieldPatch): FlightChange[] {
  const fields = changedFields(state, patch);
  return Object.keys(fields).length > 0 ? [{ type: 'FlightUpdated', flid: state.flid, fields }] : [];
}

export function listChange<K extends ListName>(state: FlightState, list: K, items: FlightLists[K]): FlightChange[] {
  return sameValue(state[list], items) ? [] : [listReplaced(list, state.flid, items)];
}

export function listChanges(state: FlightState, lists: ListPatch): FlightChange[] {
  return LIST_NAMES.flatMap((list) => {
    const items = lists[list];
    return items === undefined ? [] : listChange(state, list, items);
  });
}
