/**
 * A message's outcome as the redecide report shows it — `{ kind, errorClass, changes }` — from the
 * log (what was decided then) or from a re-decision (what today's code decides), and when two of
 * them mean the same. Pure.
 *
 * Failures are compared by their class, not by their retry bookkeeping: a message that ended
 * DEAD(EXHAUSTED) after CODEC_ERROR retries and one that today's pump would park as CODEC_ERROR at
 * once, or fail with it at its first attempt, met the same verdict of the code.
 */
import { createHash } from 'node:crypto';
import type { Change } from '../../domain/changes.ts';
import { sameValue } from '../../domain/lists.ts';
import type { Outcome } from '../pump/outcome.ts';
import type { DecisionBody } from '../../domain/decisionPayload.ts';

export interface OutcomeView {
  readonly kind: string;
  readonly errorClass: string | null;
  readonly changes: readonly Change[];
}

/** The class a failure stands for: DEAD(EXHAUSTED) stands for the class it was retried for. */
const verdictClass = (errorClass: string | null, causeClass: string | null | undefined): string | null =>
  errorClass === 'EXHAUSTED' && causeClass ? causeClass : errorClass;

export interface ComparableOutcome extends OutcomeView {
  /** errorClass with EXHAUSTED replaced by its cause. */
  readonly verdict: string | null;
}

export function loggedOutcome(d: DecisionBody): ComparableOutcome {
  const p = d.payload;
  const errorClass = 'errorClass' in p ? p.errorClass : null;
  return {
    kind: d.kind,
    errorClass,
    changes: d.kind === 'Applied' ? d.payload.changes : [],
    verdict: verdictClass(errorClass, 'causeClass' in p ? p.causeClass : undefined),
  };
}

export function decidedOutcome(o: Outcome): ComparableOutcome {
  const failure = o as { errorClass?: string; causeClass?: string | null };
  const errorClass = typeof failure.errorClass === 'string' ? failure.errorClass : null;
  return {
    kind: o.kind,
    errorClass,
    changes: o.kind === 'Applied' ? o.changes : [],
    verdict: verdictClass(errorClass, failure.causeClass),
  };
}

/** Outcomes that change flights. */
export const hasEffect = (o: OutcomeView): boolean => o.kind === 'Applied';
/** Outcomes that are a failure verdict (the message was not applied and not skipped). */
export const isFailure = (o: OutcomeView): boolean => o.kind !== 'Applied' && o.kind !== 'Skipped';

/** Whether a re-decision means what the log says. */
export function sameOutcome(a: ComparableOutcome, b: ComparableOutcome): boolean {
  if (isFailure(a) || isFailure(b)) return isFailure(a) && isFailure(b) && a.verdict === b.verdict;
  if (a.kind !== b.kind) return false;
  return a.kind !== 'Applied' || sameValue(a.changes, b.changes);
}

/** The report's shape of an outcome (no comparison key). */
export const shown = (o: ComparableOutcome): OutcomeView => ({ kind: o.kind, errorClass: o.errorClass, changes: o.changes });

/** JSON with keys sorted at every level (jsonb does not keep key order); undefined members dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const rec = value as Record<string, unknown>;
  const keys = Object.keys(rec).filter((k) => rec[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(rec[k])}`).join(',')}}`;
}

/** A short fingerprint of a re-decided outcome: a Correction records it for each message it supersedes. */
export function outcomeDigest(o: OutcomeView): string {
  return createHash('sha256').update(canonicalJson({ kind: o.kind, errorClass: o.errorClass, changes: o.changes })).digest('hex').slice(0, 32);
}
