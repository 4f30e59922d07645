import type { Change } from '../../domain/changes.ts';

export interface TouchedFlight {
  readonly flid: string;
  readonly position: string;
  /** The type of the decision's first change to this flight (FlightCreated, StandsReplaced, …). */
  readonly type: string;
}

/**
 * The flights one decision touched, once each, in the order of their first change. Archived
 * flights (FlightsArchived lists them without a per-flight change) count too.
 */
export function touchedFlights(d: { readonly position: string; readonly changes: readonly Change[] | null }): TouchedFlight[] {
  const out = new Map<string, TouchedFlight>();
  const touch = (flid: string, type: string) => {
    if (!out.has(flid)) out.set(flid, { flid, position: d.position, type });
  };
  for (const c of d.changes ?? []) {
    if (c.type === 'FlightsArchived') for (const flid of c.flids) touch(flid, c.type);
    else if ('flid' in c) touch(c.flid, c.type);
  }
  return [...out.values()];
}
