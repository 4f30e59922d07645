/**
 * Fold the decision log into a map of flights, page by page, with the domain's applyDecision —
 * how the outbox feeder builds its in-memory flight states when it starts (or after a rollback
 * left them unsure).
 */
import type { FlightState } from '../domain/flight.ts';
import { applyDecision } from '../domain/evolve.ts';
import type { Queryable } from '../platform/db.ts';
import { appliedEvent, hasChanges, readDecisionsAfter } from './readDecisions.ts';

/** Apply events with `after < position <= upTo` to `flights`; returns the last position folded. */
export async function foldLog(
  q: Queryable,
  flights: Map<string, FlightState>,
  after: string,
  upTo: string,
  pageSize = 5000,
): Promise<string> {
  const limit = BigInt(upTo);
  let position = after;
  for (;;) {
    const page = await readDecisionsAfter(q, position, pageSize);
    for (const e of page) {
      if (BigInt(e.position) > limit) return position;
      if (hasChanges(e)) applyDecision(flights, appliedEvent(e));
      position = e.position;
    }
    if (page.length < pageSize) return position;
  }
}
