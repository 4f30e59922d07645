/**
 * One pass over the log for a check, with the domain's `applyDecision`: the flights as of the
 * flight projection's checkpoint, and the outbox rows the decisions up to the outbox's checkpoint
 * imply. The two checkpoints may differ (each projector runs on its own); the fold goes to the
 * higher one and keeps a copy of the map at the flights checkpoint (states are never edited once
 * stored, so a shallow copy is a true snapshot).
 */
import { applyDecision } from '../domain/evolve.ts';
import type { FlightState } from '../domain/flight.ts';
import type { AidxRules } from '../domain/aidxOut/aidxMessage.ts';
import type { CoutmsgsRoute } from '../projections/outboxRoutes.ts';
import { emptyPendingReference, foldReferenceEvents, type PendingReference } from '../projections/reference/referenceFold.ts';
import type { LogEvent } from '../log/readForFlights.ts';
import { OutboxExpectation } from './outboxCheck.ts';

export interface FoldResult {
  /** The reference projector's fold up to its checkpoint (whole decisions only). */
  readonly reference: PendingReference | null;
  /** Flights folded up to the flights checkpoint. */
  readonly flights: Map<string, FlightState>;
  readonly outbox: OutboxExpectation;
  readonly events: number;
}

export interface FoldOptions {
  /** The pages hold whole decisions (all flights), not some flights' changes. */
  readonly whole: boolean;
  readonly routes?: readonly CoutmsgsRoute[];
  /** The AIDX target's rules (MSGX_AIDX_OUT); absent: no AIDX rows expected. */
  readonly aidx?: AidxRules;
  /** Also fold reference data up to this position (the `reference` checkpoint). */
  readonly referenceAt?: string;
  readonly onPage?: (position: string, events: number) => void;
}

export async function foldForCheck(
  pages: AsyncIterable<LogEvent[]>,
  at: { flights: string; outbox: string },
  opts: FoldOptions,
): Promise<FoldResult> {
  const flightsAt = BigInt(at.flights);
  const outboxAt = BigInt(at.outbox);
  const fold = new Map<string, FlightState>();
  const outbox = new OutboxExpectation(opts.whole, opts.routes, opts.aidx);
  const referenceAt = opts.referenceAt === undefined ? undefined : BigInt(opts.referenceAt);
  const reference = referenceAt === undefined ? null : emptyPendingReference();
  let snapshot: Map<string, FlightState> | undefined;
  let events = 0;
  for await (const page of pages) {
    for (const e of page) {
      const position = BigInt(e.position);
      if (snapshot === undefined && position > flightsAt) snapshot = new Map(fold);
      events++;
      if (e.changes.length === 0) continue;
      if (reference !== null && position <= referenceAt!) foldReferenceEvents([e], reference);
      const touched = applyDecision(fold, e);
      if (position <= outboxAt) outbox.expect(e, touched, fold);
    }
    const last = page[page.length - 1];
    if (last) opts.onPage?.(last.position, events);
  }
  return { flights: snapshot ?? fold, outbox, reference, events };
}
