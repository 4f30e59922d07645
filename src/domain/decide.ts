/**
 * decide: (flights, message) → the semantic changes of the message. Pure — "today" is the local
 * date of the message's DTTM, never the clock — so replaying the log gives the same decisions.
 *
 * Skips: when no FLOP block could be applied because every target is unknown (or deleted), the
 * decision carries `skipped` and no change; the pump ends the message SKIPPED with that reason.
 * When only some blocks were skipped, the rest apply and the skipped flids are reported.
 */
import type { Change } from './changes.ts';
import type { FlightState } from './flight.ts';
import { decideAidx } from './handlers/aidx.ts';
import { decideFlop, type BlockOutcome } from './handlers/flop.ts';
import { handlerFor, type HandlerInfo } from './handlers/registry.ts';
import { decideSchdDelete, decideSchdSnapshot, decideSchdUpsert } from './handlers/schd.ts';
import type { Message } from './message.ts';
import { NO_PLAN_REQUESTS, requestedWindowFor, type PlanRequests } from './planRequests.ts';
import { decideReference, type SkippedRecord } from './reference/decideReference.ts';
import { decideSeasonal } from './reference/decideSeasonal.ts';
import { EMPTY_REFERENCE, type ReferenceState } from './reference/state.ts';
import { dropStale } from './stale.ts';
import { runSteps, type Steps } from './steps.ts';

export type SkipReason = 'unknown-flight' | 'flight-deleted' | 'unknown-record' | 'stale';

export interface DecideOptions {
  /**
   * The message's id (FIFO order). When given, what a later message already set is not
   * overwritten (the stale rule of a replayed message, stale.ts).
   */
  msgId?: string;
  /**
   * The plan requests msgx made, folded from the log (planRequests.ts): a RESP whose RMID names one
   * deletes within the requested window. Absent: none.
   */
  planRequests?: PlanRequests;
}

export interface Decision {
  ok: true;
  handler: string;
  handlerVersion: number;
  changes: Change[];
  /** Set when nothing of the message could be applied. */
  skipped?: SkipReason;
  /** FLOP blocks skipped because their FLID is unknown. */
  unknownFlids?: string[];
  /** FLOP blocks skipped because their flight is deleted. */
  deletedFlids?: string[];
  /** Flights for which something was not applied because a later message already set it. */
  staleFlids?: string[];
  /** FLOP: every block's outcome, in message order. */
  blocks?: BlockOutcome[];
  /** Reference / seasonal records left out (no key, invalid period or DYOP). */
  skippedRecords?: SkippedRecord[];
  /** Reference DEL of codes the store does not hold. */
  unknownRecords?: string[];
  /** Remarks for the audit (RECS differs, records skipped). */
  notes?: string[];
  /** To be logged at warn level (an empty snapshot); never carries record values. */
  warnings?: string[];
}

/**
 * What decides a message: `decide` below, over the registry's handlers. The pump and `msgx redecide`
 * take one as a port, so a test can run them with another handler set (e.g. one with a bug).
 */
export type Decider = (flights: ReadonlyMap<string, FlightState>, message: Message, reference?: ReferenceState, opts?: DecideOptions) => Decision;

function handlerOf(message: Message): HandlerInfo {
  const h = handlerFor(message.type === 'REFERENCE' ? message.kind : message.type, message.styp);
  // The codec only produces catalogued subtypes and the registry covers the catalogue (tested).
  if (h === undefined) throw new Error(`no handler registered for ${message.type}/${message.styp}`);
  return h;
}

/** `reference`: the reference store (for reference messages; flights' decisions do not read it). */
export function decide(
  flights: ReadonlyMap<string, FlightState>,
  message: Message,
  reference: ReferenceState = EMPTY_REFERENCE,
  opts: DecideOptions = {},
): Decision {
  return runSteps(decideSteps(flights, message, reference, opts));
}

/**
 * `decide` in steps (src/domain/steps.ts): the same decision, yielding between records of a plan,
 * so that the pump can decide a plan of 70,000 records a slice at a time.
 */
export function* decideSteps(
  flights: ReadonlyMap<string, FlightState>,
  message: Message,
  reference: ReferenceState = EMPTY_REFERENCE,
  opts: DecideOptions = {},
): Steps<Decision> {
  const decision = yield* decideFresh(flights, message, reference, opts.planRequests ?? NO_PLAN_REQUESTS);
  if (opts.msgId === undefined) return decision;
  const { changes, staleFlids, allStaleFlids } = dropStale(flights, decision.changes, opts.msgId);
  if (staleFlids.length === 0) return decision;
  const out: Decision = { ...decision, changes, staleFlids };
  if (out.blocks) {
    const allStale = new Set(allStaleFlids);
    out.blocks = out.blocks.map((b) => (b.outcome === 'applied' && allStale.has(b.flid) ? { ...b, outcome: 'stale' } : b));
    if (message.type === 'FLOP' && !out.blocks.some((b) => b.outcome === 'applied')) out.skipped = 'stale';
  } else if (!changes.some((c) => c.type !== 'PlanSnapshotApplied')) {
    out.skipped = 'stale';
  }
  return out;
}

function* decideFresh(
  flights: ReadonlyMap<string, FlightState>, message: Message, reference: ReferenceState, planRequests: PlanRequests,
): Steps<Decision> {
  const h = handlerOf(message);
  const base = { ok: true, handler: h.name, handlerVersion: h.version } as const;
  switch (message.type) {
    case 'SCHD': {
      const { styp } = message;
      if (styp === 'DEL') {
        const out = yield* decideSchdDelete(flights, message);
        const decision: Decision = { ...base, changes: out.changes };
        if (out.unknownFlids.length > 0) decision.unknownFlids = out.unknownFlids;
        if (out.unknownFlids.length === message.records.length && message.records.length > 0) decision.skipped = 'unknown-flight';
        return decision;
      }
      const changes = styp === 'ADFT'
        ? yield* decideSchdUpsert(flights, message)
        : yield* decideSchdSnapshot(flights, { ...message, styp }, requestedWindowFor(planRequests, message));
      return { ...base, changes };
    }
    case 'FLOP': {
      const out = decideFlop(flights, message);
      const decision: Decision = { ...base, changes: out.changes, blocks: out.blocks };
      if (out.unknownFlids.length > 0) decision.unknownFlids = out.unknownFlids;
      if (out.deletedFlids.length > 0) decision.deletedFlids = out.deletedFlids;
      if (out.applied === 0 && message.ops.length > 0) {
        decision.skipped = out.unknownFlids.length > 0 ? 'unknown-flight' : 'flight-deleted';
      }
      return decision;
    }
    case 'AIDX': {
      const out = decideAidx(flights, message);
      const decision: Decision = { ...base, changes: out.changes, notes: out.notes };
      if (out.deletedFlids.length > 0) decision.deletedFlids = out.deletedFlids;
      if (out.changes.length === 0 && message.legs.length > 0) {
        if (out.deletedFlids.length === message.legs.length) decision.skipped = 'flight-deleted';
        else if (out.unknownLegs === message.legs.length) decision.skipped = 'unknown-flight';
      }
      return decision;
    }
    case 'REFERENCE':
    case 'SCHS': {
      const out = message.type === 'SCHS' ? decideSeasonal(message) : decideReference(reference, message);
      const decision: Decision = { ...base, changes: out.changes };
      if (out.skippedRecords.length > 0) decision.skippedRecords = out.skippedRecords;
      if (out.unknownRecords.length > 0) decision.unknownRecords = out.unknownRecords;
      if (out.notes.length > 0) decision.notes = out.notes;
      if (out.warnings.length > 0) decision.warnings = out.warnings;
      if (out.skipped) decision.skipped = out.skipped;
      return decision;
    }
  }
}
