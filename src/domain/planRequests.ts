/**
 * The plan requests msgx made (RQFD), as decisions see them: MGID → requested window. Folded from
 * the log (`PlanRequested` changes, recorded when a request is registered), like flights and the
 * reference store, so a RESP is decided from the log alone and `msgx redecide` gets the same
 * answer. Immutable: folding returns a new map, or the same one when nothing was requested.
 *
 * A request stays known after it was answered or expired: a late or repeated RESP naming it
 * still answers it (a few entries a day).
 */
import type { Change } from './changes.ts';
import type { Instant } from './flight.ts';
import type { SchdMessage } from './message.ts';

export interface RequestedWindow {
  readonly mgid: string;
  readonly start: Instant;
  readonly end: Instant;
}

export type PlanRequests = ReadonlyMap<string, RequestedWindow>;

export const NO_PLAN_REQUESTS: PlanRequests = new Map();

/** The requests after `changes` (the same map when none of them is a PlanRequested). */
export function foldPlanRequests(state: PlanRequests, changes: readonly Change[]): PlanRequests {
  let next: Map<string, RequestedWindow> | undefined;
  for (const c of changes) {
    if (c.type !== 'PlanRequested') continue;
    (next ??= new Map(state)).set(c.mgid, { mgid: c.mgid, start: c.windowStart, end: c.windowEnd });
  }
  return next ?? state;
}

/**
 * The window a RESP must delete in when it answers one of our plan requests: its RMID names the
 * request's MGID (compared exactly, as the AODB echoes it). A DNLD, or a RESP without such an
 * RMID, has none (it deletes per operation day, as a DNLD).
 */
export function requestedWindowFor(requests: PlanRequests, message: SchdMessage): RequestedWindow | undefined {
  if (message.styp !== 'RESP' || message.meta.rmid === null) return undefined;
  return requests.get(message.meta.rmid);
}
