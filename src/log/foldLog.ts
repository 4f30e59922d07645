/**
 * Fold the decision log into a map of flights, page by page, with the domain's applyDecision —
 * how the outbox feeder builds its in-memory flight states when it starts (or after a rollback
 * left them unsure).
 */
import type { Change } from '../domain/changes.ts';
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

/** Flight states as of a position, to fold on from (a write-model snapshot: docs/recovery.md "Write-model snapshots"). */
export interface FoldBase {
  readonly position: string;
  readonly flights: ReadonlyMap<string, FlightState>;
}

/**
 * The states as of position `upTo` of just the flights `flids` (those that exist then): their
 * states in `base` (none: from position 0), then every decision after it up to `upTo` that names
 * one of them (`decision_event.flids`, GIN-indexed), folded in order. Other flights those
 * decisions touch come out incomplete and are left out.
 */
export async function foldFlightsUpTo(
  q: Queryable,
  flids: readonly string[],
  upTo: string,
  base?: FoldBase,
  pageSize = 5000,
): Promise<Map<string, FlightState>> {
  const folded = new Map<string, FlightState>();
  for (const flid of base ? flids : []) {
    const state = base!.flights.get(flid);
    if (state) folded.set(flid, state);
  }
  let after = base?.position ?? '0';
  for (;;) {
    const { rows } = await q.query<{ position: string; msg_id: string | null; changes: Change[] | null; recorded_at: string }>(
      `SELECT position, msg_id, payload->'changes' AS changes,
              to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at
         FROM decision_event
        WHERE flids && $1::text[] AND position > $2::bigint AND position <= $3::bigint
        ORDER BY position
        LIMIT $4`,
      [flids, after, upTo, pageSize],
    );
    for (const r of rows) {
      if (Array.isArray(r.changes) && r.changes.length > 0) {
        applyDecision(folded, { position: r.position, msgId: r.msg_id, recordedAt: r.recorded_at, changes: r.changes });
      }
      after = r.position;
    }
    if (rows.length < pageSize) break;
  }
  const wanted = new Map<string, FlightState>();
  for (const flid of flids) {
    const state = folded.get(flid);
    if (state) wanted.set(flid, state);
  }
  return wanted;
}
