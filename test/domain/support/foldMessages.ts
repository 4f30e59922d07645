/**
 * The pump's message path without a database: decode → identity dedup (first binding wins) →
 * decide → applyDecision, giving each message the outcome the pump would record. Undecodable
 * messages end as the pump ends them: MALFORMED dies at once, CODEC_ERROR and UNSUPPORTED park
 * at once (retrying cannot change a pure decode).
 */
import { decode } from '../../../src/domain/codec/decode.ts';
import { decide } from '../../../src/domain/decide.ts';
import { applyDecision } from '../../../src/domain/evolve.ts';
import type { FlightState } from '../../../src/domain/flight.ts';
import { identityKey } from '../../../src/domain/identity.ts';
import { EMPTY_REFERENCE, foldReference, type ReferenceState } from '../../../src/domain/reference/state.ts';

export interface Outcome {
  state: 'SUCCEEDED' | 'SKIPPED' | 'DEAD' | 'PARKED';
  errorClass?: 'MALFORMED' | 'CODEC_ERROR' | 'UNSUPPORTED';
  lastError?: string;
}

export interface FoldOptions {
  tz: string;
  includeDay?: boolean;
}

export interface FoldResult {
  flights: Map<string, FlightState>;
  /** The reference store after the messages. */
  reference: ReferenceState;
  outcomes: Outcome[];
}

/** Fold `xmls` in order; message ids are 1-based positions in the list. */
export function foldMessages(xmls: readonly string[], opts: FoldOptions): FoldResult {
  const flights = new Map<string, FlightState>();
  let reference = EMPTY_REFERENCE;
  const bound = new Map<string, number>();
  const outcomes: Outcome[] = [];
  let position = 0;
  xmls.forEach((xml, i) => {
    const msgId = i + 1;
    const r = decode(xml, { tz: opts.tz });
    if (!r.ok) {
      outcomes.push({ state: r.errorClass === 'MALFORMED' ? 'DEAD' : 'PARKED', errorClass: r.errorClass, lastError: r.error });
      return;
    }
    const key = identityKey(r.message.meta, { includeDay: opts.includeDay ?? false });
    const first = bound.get(key);
    if (first !== undefined) {
      outcomes.push({ state: 'SKIPPED', lastError: `duplicate-of:${first}` });
      return;
    }
    bound.set(key, msgId);
    const d = decide(flights, r.message, reference, { msgId: String(msgId) });
    if (d.skipped !== undefined) {
      outcomes.push({ state: 'SKIPPED', lastError: d.skipped });
      return;
    }
    position += 1;
    applyDecision(flights, { position: String(position), msgId: String(msgId), recordedAt: r.message.meta.sentAt, changes: d.changes });
    reference = foldReference(reference, d.changes);
    outcomes.push({ state: 'SUCCEEDED' });
  });
  return { flights, reference, outcomes };
}
