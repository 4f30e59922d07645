/**
 * The stale rule of a replayed message (interface.md): a message decided after later messages
 * (a parked message replayed after a codec fix or a new handler) is judged against the flight as
 * it is now, and a field or list that a later message already set is not overwritten with its
 * older value. "Later" is the FIFO order: a larger msg id (CMINMSGS_ID). In ordinary FIFO
 * processing every setter has a smaller id, so nothing is ever stale.
 */
import { listOf, type Change } from './changes.ts';
import type { FlightState } from './flight.ts';
import { compareFlids } from './flid.ts';

export interface StaleFiltered {
  readonly changes: Change[];
  /** Flights for which at least one change (or part of one) was dropped as stale. */
  readonly staleFlids: string[];
  /** Flights for which every change was dropped as stale. */
  readonly allStaleFlids: string[];
}

/** Whether `key` of `state` was set by a message later than `msgId`. */
function newer(state: FlightState | undefined, key: string, msgId: string): boolean {
  const by = state?.sources?.[key];
  return by !== undefined && compareFlids(by, msgId) > 0;
}

/** `changes` (decided against `flights`) without what would overwrite data of a later message. */
export function dropStale(flights: ReadonlyMap<string, FlightState>, changes: readonly Change[], msgId: string): StaleFiltered {
  const kept: Change[] = [];
  const stale = new Set<string>();
  const keptFor = new Set<string>();
  for (const change of changes) {
    if (change.type === 'FlightUpdated') {
      const state = flights.get(change.flid);
      const fields: Record<string, unknown> = {};
      let dropped = false;
      for (const [k, v] of Object.entries(change.fields)) {
        if (newer(state, k, msgId)) dropped = true;
        else fields[k] = v;
      }
      if (dropped) stale.add(change.flid);
      if (Object.keys(fields).length === 0) continue;
      kept.push(dropped ? { ...change, fields } : change);
      keptFor.add(change.flid);
      continue;
    }
    if (change.type.endsWith('Replaced') && 'items' in change && newer(flights.get(change.flid), listOf(change), msgId)) {
      stale.add(change.flid);
      continue;
    }
    kept.push(change);
    if ('flid' in change) keptFor.add(change.flid);
  }
  const staleFlids = [...stale];
  return { changes: kept, staleFlids, allStaleFlids: staleFlids.filter((f) => !keptFor.has(f)) };
}
