/**
 * What one fuzz case is and how its outcome is judged. Every case must end classified (a decoded
 * message, or MALFORMED / CODEC_ERROR / UNSUPPORTED with a reason), within a time bound that grows
 * with its size, in the class its family expects, and with no content of the planted secret file
 * anywhere in the result.
 */
import type fc from 'fast-check';
import type { DecodeErrorClass, DecodeResult } from '../../../src/domain/codec/decode.ts';

export type Outcome = 'ok' | DecodeErrorClass;
export const OUTCOMES: readonly Outcome[] = ['ok', 'MALFORMED', 'CODEC_ERROR', 'UNSUPPORTED'];

export interface FuzzCase {
  readonly raw: string;
  /** Classes this input may end in ('any': only "classified at all" is asserted). */
  readonly expect: readonly Outcome[] | 'any';
  /** A further check of the result; returns a problem or null. */
  readonly check?: (r: DecodeResult) => string | null;
}

export interface Family {
  readonly name: string;
  /** Generated cases per default run / per soak run (MSGX_SOAK=1). */
  readonly runs: number;
  readonly soakRuns: number;
  readonly arb: fc.Arbitrary<FuzzCase>;
}

/** A file planted on disk that external-entity attempts point at; its text must never come back. */
export interface Planted {
  readonly path: string;
  readonly text: string;
}

export const outcomeOf = (r: DecodeResult): Outcome => (r.ok ? 'ok' : r.errorClass);

const MiB = 1024 * 1024;

/**
 * Wall-clock bound for one decode: generous on a loaded 2-core machine (decoding is linear,
 * about 1–3 s per MiB in the worst shapes there), far below what a quadratic blow-up or a loop needs.
 */
export const timeBoundMs = (raw: string): number => 1500 + 6000 * (raw.length / MiB);

/** Everything wrong with one outcome, or null. */
export function judge(c: FuzzCase, r: DecodeResult, elapsedMs: number, planted: Planted): string | null {
  const outcome = outcomeOf(r);
  if (r.ok) {
    const type: string = r.message.type;
    if (!['SCHD', 'FLOP', 'REFERENCE', 'SCHS'].includes(type)) return `decoded to an unknown message type ${type}`;
  } else if (!OUTCOMES.includes(r.errorClass) || typeof r.error !== 'string' || r.error.trim() === '') {
    return `not classified: ${JSON.stringify({ errorClass: r.errorClass, error: r.error })}`;
  }
  if (c.expect !== 'any' && !c.expect.includes(outcome)) {
    return `expected ${c.expect.join('|')}, got ${outcome}${r.ok ? '' : `: ${r.error.slice(0, 200)}`}`;
  }
  const bound = timeBoundMs(c.raw);
  if (elapsedMs > bound) return `took ${Math.round(elapsedMs)} ms (bound ${Math.round(bound)} ms for ${c.raw.length} chars)`;
  if (JSON.stringify(r).includes(planted.text)) return 'the planted file content appears in the result (external entity resolved)';
  return c.check?.(r) ?? null;
}
