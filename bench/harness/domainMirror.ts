/**
 * The pump's decision path run in-process, without a database: the pump's own `evaluate()`
 * (decode → identity → decide) against a map of flights, folded with applyDecision, producing the
 * decision rows the pump would append (commitDecisions' `decisionOf`). Used to build big logs
 * quickly, to know which generated message will produce a Kafka record, and as the in-process
 * baseline of the plan snapshot.
 */
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { loadConfig } from '../../src/platform/config.ts';
import type { NewDecision } from '../../src/log/appendDecisions.ts';
import { decisionOf } from '../../src/write/pump/commitDecisions.ts';
import { evaluate } from '../../src/write/pump/evaluate.ts';
import type { Head } from '../../src/write/pump/findHeads.ts';
import type { Outcome } from '../../src/write/pump/outcome.ts';
import { BENCH_ENV } from './benchRuntime.ts';

const cfg = loadConfig({ ...BENCH_ENV });

/** The pump's verdict on `raw` against `flights`, whatever it is (no identity is bound yet: generated identities are unique). */
export function verdictOf(flights: ReadonlyMap<string, FlightState>, raw: string, msgId = '1'): Promise<Outcome> {
  const head: Head = { msgId, state: 'PENDING', attempts: 0, nextAttemptAt: null, firstFailureAt: null, identityKey: null, rawXml: raw, ingestedAt: new Date(), nulReplaced: false };
  return evaluate(head, { cfg, now: new Date(), flights, identityOwner: async () => null });
}

/** The pump's verdict on `raw` against `flights`, which must be Applied or Skipped (a generated message). */
export async function outcomeOf(flights: ReadonlyMap<string, FlightState>, raw: string, msgId = '1'): Promise<Outcome> {
  const outcome = await verdictOf(flights, raw, msgId);
  if (outcome.kind === 'Failed' || outcome.kind === 'Dead') throw new Error(`generated message ends ${outcome.kind} (${outcome.errorClass}): ${outcome.error}`);
  return outcome;
}

export interface MirroredDecision {
  readonly position: string;
  readonly msgId: string;
  readonly recordedAt: Date;
  readonly decision: NewDecision;
  /** Changes the decision carries (0 for a Skipped one). */
  readonly changes: number;
}

/** A write model of its own: decisions are positioned 1, 2, … in the order they are committed. */
export class DomainMirror {
  readonly flights = new Map<string, FlightState>();
  private last = 0n;

  get position(): string {
    return String(this.last);
  }

  /** Decide `raw` (no fold). */
  evaluate(raw: string, msgId = '1'): Promise<Outcome> {
    return outcomeOf(this.flights, raw, msgId);
  }

  /** Append `outcome` as the next decision and fold it, recorded at the message's DTTM. */
  commit(msgId: string, outcome: Outcome): MirroredDecision {
    this.last += 1n;
    const position = String(this.last);
    const recordedAt = outcome.meta ? new Date(outcome.meta.sentAt) : new Date(0);
    if (outcome.kind === 'Applied') {
      applyDecision(this.flights, { position, msgId, recordedAt: recordedAt.toISOString(), changes: outcome.changes });
    }
    return {
      position,
      msgId,
      recordedAt,
      decision: decisionOf(msgId, outcome),
      changes: outcome.kind === 'Applied' ? outcome.changes.length : 0,
    };
  }

  async process(raw: string, msgId: string): Promise<MirroredDecision> {
    return this.commit(msgId, await this.evaluate(raw, msgId));
  }
}
