/**
 * What a patch actually changes on a flight: the changes to emit so that repeating the same data
 * emits nothing (no version bump).
 */
import { listReplaced, type FlightChange } from '../changes.ts';
import { FIELD_NAMES } from '../fields.ts';
import type { FieldName, FlightFields, FlightLists, FlightState, ListName } from '../flight.ts';
import { LIST_NAMES, sameValue } from '../lists.ts';
import type { FieldPatch, ListPatch } from '../message.ts';

const FIELD_INDEX: ReadonlyMap<string, number> = new Map(FIELD_NAMES.map((name, i) => [name, i]));

/**
 * The fields of `patch` whose value differs from `state` (absent keys are not changes), in
 * FIELD_NAMES order. Walks the patch's own few keys rather than looking every field name up in it.
 */
export function changedFields(state: FlightFields, patch: FieldPatch): Partial<FlightFields> {
  const out: Record<string, unknown> = {};
  let names: FieldName[] | null = null;
  let ordered = true;
  let last = -1;
  const p = patch as Record<string, unknown>;
  for (const name in p) {
    const i = FIELD_INDEX.get(name);
    if (i === undefined) continue;
    const value = p[name];
    if (value === undefined || value === state[name as FieldName]) continue;
    (names ??= []).push(name as FieldName);
    if (i < last) ordered = false;
    last = i;
  }
  if (names === null) return out;
  if (!ordered) names.sort((a, b) => FIELD_INDEX.get(a)! - FIELD_INDEX.get(b)!);
  for (const name of names) out[name] = p[name];
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
