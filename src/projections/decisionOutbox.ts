/**
 * What one Applied decision puts into the outbox (pure):
 *   KAFKA_MSG   one row per change, in change order: { type, flid, position, msgId, recordedAt, change };
 *               changes without a flight (PlanSnapshotApplied) get flid null (a Kafka record with no key)
 *   KAFKA_SCHD  one row per touched flight that still exists: its FlightView as of this decision
 * Every instant of a Kafka payload (recordedAt, the change's, the view's) is shown in the airport
 * zone with its offset, exactly as the GraphQL API shows it (interface.md; time.ts zoneFormatter).
 *   COUTMSGS    one row per change a configured route accepts
 *   AIDX        (MSGX_AIDX_OUT) one row per touched flight, deleted ones too: its AIDX message as of
 *               this decision, SequenceNmbr = position (docs/delivery.md "AIDX"); a flight whose leg
 *               cannot be identified gets none (`onAidxSkip`)
 * Reference-data and seasonal-schedule changes get no rows (they are not flight events; VIPL
 * records are personal data).
 * `seq` numbers the rows of one (decision, target) from 0, which makes re-feeding idempotent.
 */
import { isFlightChange, type Change } from '../domain/changes.ts';
import type { Target } from '../domain/contract.ts';
import { isReferenceChange } from '../domain/reference/changes.ts';
import type { FlightState } from '../domain/flight.ts';
import { toChangeView } from '../domain/changeView.ts';
import { toFlightView } from '../domain/flightView.ts';
import { formatOutward } from '../domain/time.ts';
import type { DecisionEvent } from '../log/readDecisions.ts';
import type { CoutmsgsPayload, CoutmsgsRoute } from './outboxRoutes.ts';
import { aidxMessage, type AidxRules, type AidxSkipReason } from '../domain/aidxOut/aidxMessage.ts';

export type OutboxTarget = Target;

export interface OutboxRow {
  readonly target: OutboxTarget;
  readonly sourcePosition: string;
  readonly seq: number;
  readonly msgId: string | null;
  readonly flid: string | null;
  readonly payload: unknown;
  /** Kafka headers (the dispatcher adds the event id): position always, msgId when there is one. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Which decisions the outbox feeder sends; the others with changes (FlightsArchived) are only folded.
 * A Correction (msgx redecide --apply) changes flights like an Applied decision and is sent alike.
 */
export const isSentKind = (kind: string): boolean => kind === 'Applied' || kind === 'Correction';

/** Changes that leave msgx through the outbox: not reference data or seasonal schedules (VIPL is personal data). */
export const isSentChange = (change: Change): boolean => !isReferenceChange(change);

export function changeFlid(change: Change): string | null {
  return isFlightChange(change) ? change.flid : null;
}

/** The airport zone and COUTMSGS routes the outbox is built with. */
export interface OutboxRules {
  /** Every instant of a Kafka payload is shown in this zone with its offset, as the GraphQL API shows it. */
  readonly tz: string;
  readonly routes: readonly CoutmsgsRoute[];
  /** The AIDX target's rules; absent: no AIDX rows (MSGX_AIDX_OUT off). */
  readonly aidx?: AidxRules;
  /** Told of each touched flight that got no AIDX row, and why. */
  readonly onAidxSkip?: (flid: string, reason: AidxSkipReason) => void;
}

type SentEvent = DecisionEvent & { changes: readonly Change[] };

/** The changes of a decision that get a KAFKA_MSG row each, in `seq` order. */
export function sentChanges(event: SentEvent): Change[] {
  // Reference data and seasonal schedules stay in msgx (VIPL is personal data): not sent out.
  return event.changes.filter(isSentChange);
}

/** The COUTMSGS rows' flids and payloads of a decision, in `seq` order. */
export function coutmsgsOutputs(
  event: SentEvent,
  changes: readonly Change[],
  flights: ReadonlyMap<string, FlightState>,
  routes: readonly CoutmsgsRoute[],
): { flid: string | null; payload: CoutmsgsPayload }[] {
  return Array.from(coutmsgsOutputsOf(event, changes, flights, routes));
}

/** `coutmsgsOutputs`, one at a time. */
function* coutmsgsOutputsOf(
  event: SentEvent,
  changes: readonly Change[],
  flights: ReadonlyMap<string, FlightState>,
  routes: readonly CoutmsgsRoute[],
): Generator<{ flid: string | null; payload: CoutmsgsPayload }> {
  for (const change of changes) {
    const flid = changeFlid(change);
    const flight = flid === null ? undefined : flights.get(flid);
    for (const route of routes) {
      const payload = route({ event, change, flight });
      if (payload) yield { flid, payload };
    }
  }
}

export function outboxRowsFor(
  event: SentEvent,
  touched: ReadonlySet<string>,
  flights: ReadonlyMap<string, FlightState>,
  rules: OutboxRules,
): OutboxRow[] {
  return Array.from(outboxRowsOf(event, touched, flights, rules));
}

/**
 * The rows of `outboxRowsFor`, one at a time, in the same order: the feeder inserts a plan
 * snapshot of 150k flights in chunks (docs/projections.md "Big decisions") without holding all its
 * rows at once.
 */
export function* outboxRowsOf(
  event: SentEvent,
  touched: ReadonlySet<string>,
  flights: ReadonlyMap<string, FlightState>,
  rules: OutboxRules,
): Generator<OutboxRow> {
  const headers: Record<string, string> = event.msgId === null
    ? { position: event.position }
    : { msgId: event.msgId, position: event.position };
  const base = { sourcePosition: event.position, msgId: event.msgId, headers };
  const changes = sentChanges(event);
  const recordedAt = formatOutward(event.recordedAt, rules.tz);
  let seq = 0;
  for (const change of changes) {
    const flid = changeFlid(change);
    yield {
      ...base, target: 'KAFKA_MSG', seq: seq++, flid,
      payload: { type: change.type, flid, position: event.position, msgId: event.msgId, recordedAt, change: toChangeView(change, rules.tz) },
    };
  }
  seq = 0;
  for (const flid of touched) {
    const state = flights.get(flid);
    if (state) yield { ...base, target: 'KAFKA_SCHD', seq: seq++, flid, payload: toFlightView(state, { tz: rules.tz }) };
  }
  seq = 0;
  for (const { flid, payload } of coutmsgsOutputsOf(event, changes, flights, rules.routes)) {
    yield { ...base, target: 'COUTMSGS', seq: seq++, flid, payload };
  }
  if (rules.aidx) {
    seq = 0;
    for (const flid of touched) {
      const state = flights.get(flid);
      if (!state) continue;
      const out = aidxMessage(state, event.position, event.recordedAt, rules.aidx);
      if ('xml' in out) yield { ...base, target: 'AIDX', seq: seq++, flid, payload: { xml: out.xml } };
      else rules.onAidxSkip?.(flid, out.skipped);
    }
  }
}
