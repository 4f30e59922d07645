/**
 * The stored (compact) form of a FlightCreated (docs/projections.md "Big decisions"): `fields`
 * without the null ones and `lists` without the empty ones. A plan snapshot creates a flight per
 * record with ~55 fields, most of them null: stored in full, 150k minimal records made a 212 MB
 * payload (PostgreSQL's jsonb limit is 255 MB); compact, ~10× less.
 *
 * `compactChanges` is applied once, where a decision is written (src/log/appendDecisions.ts);
 * `expandChanges` is the one way back to the full form, applied where decisions are read
 * (src/log/readDecisions.ts, src/domain/decisionPayload.ts `decisionBody`, the consistency
 * check's log reader), so the outbox, redecide, the projections and the ESDB forwarder see what
 * they always saw, byte for byte. A full FlightCreated (every log written before) expands to
 * itself; the fold (evolve.ts) reads either form. Pure.
 */
import type { Change, FlightCreated } from './changes.ts';
import { fieldsOf } from './fields.ts';
import type { FlightFields, FlightLists } from './flight.ts';
import { listsOf } from './lists.ts';
import { stepCounter, type Steps } from './steps.ts';

/** A FlightCreated as stored: absent field = null, absent list = empty. */
export interface CompactFlightCreated {
  type: 'FlightCreated';
  flid: string;
  operationDay: string;
  fields: Partial<FlightFields>;
  lists: Partial<FlightLists>;
}

export function compactCreated(c: FlightCreated): CompactFlightCreated {
  // for…in, not Object.entries: the same keys in the same order, without a [key, value] array per
  // field (55 per flight: 70,000 created flights made 3.9 million of them, most of the payload text's time).
  const fields: Record<string, unknown> = {};
  const fullFields = c.fields as unknown as Record<string, unknown>;
  for (const k in fullFields) {
    const v = fullFields[k];
    if (v !== null && v !== undefined) fields[k] = v;
  }
  const lists: Record<string, unknown> = {};
  const fullLists = c.lists as unknown as Record<string, unknown>;
  for (const k in fullLists) {
    const v = fullLists[k];
    if (Array.isArray(v) && v.length > 0) lists[k] = v;
  }
  return { type: 'FlightCreated', flid: c.flid, operationDay: c.operationDay, fields: fields as Partial<FlightFields>, lists: lists as Partial<FlightLists> };
}

/** The full FlightCreated of a stored one (compact or full): every field, null when absent; every list. */
export function expandCreated(c: FlightCreated | CompactFlightCreated): FlightCreated {
  return { type: 'FlightCreated', flid: c.flid, operationDay: c.operationDay, fields: fieldsOf(c.fields ?? {}), lists: listsOf(c.lists ?? {}) };
}

/** `changes` as stored: each FlightCreated compact, the others as they are. */
export function compactChanges(changes: readonly Change[]): (Change | CompactFlightCreated)[] {
  return changes.map((c) => (c.type === 'FlightCreated' ? compactCreated(c) : c));
}

/** `changes` as read back: each FlightCreated full (expandCreated), the others as they are. */
export function expandChanges<C extends Change>(changes: readonly C[]): C[] {
  return changes.map(expandChange);
}

/** One change as read back: a stored (compact) FlightCreated full again, any other as it is. */
function expandChange<C extends Change>(c: C): C {
  return c.type === 'FlightCreated' ? (expandCreated(c as FlightCreated) as C) : c;
}

/** `expandChanges` in steps (src/domain/steps.ts): a plan's 70,000 created flights read back a slice at a time. */
export function* expandChangesSteps<C extends Change>(changes: readonly C[]): Steps<C[]> {
  const out = new Array<C>(changes.length);
  const step = stepCounter();
  for (let i = 0; i < changes.length; i++) {
    out[i] = expandChange(changes[i]!);
    if (step()) yield;
  }
  return out;
}
