import { isFlightChange, type Change } from '../../domain/changes.ts';
import { runSteps, stepCounter, type Steps } from '../../domain/steps.ts';
import type { BlockOutcome } from '../../domain/handlers/flop.ts';
import type { ReferenceNotes } from '../../domain/decisionPayload.ts';
import type { Meta } from '../../domain/message.ts';
import { backoffDelay, type Config } from '../../platform/config.ts';

/** Error classes of docs/contract/design.md §6. */
export type ErrorClass = 'MALFORMED' | 'CODEC_ERROR' | 'UNSUPPORTED' | 'INFRA' | 'EXHAUSTED';
/** Classes a message can be replayed for; the cause recorded with DEAD(EXHAUSTED). */
export type RetryableClass = 'CODEC_ERROR' | 'UNSUPPORTED' | 'INFRA';
/** Deterministic failures: retrying gives the same answer, so they park at once (interface.md). */
export type ParkedClass = 'CODEC_ERROR' | 'UNSUPPORTED';

interface Common {
  /** Identity to bind to this message (set only after a successful decode, and not for duplicates). */
  readonly identity: string | null;
  readonly meta: Meta | null;
}

export type Outcome =
  | (Common & {
      readonly kind: 'Applied';
      readonly handler: string;
      readonly handlerVersion: number;
      readonly changes: readonly Change[];
      readonly unknownFlids?: readonly string[];
      readonly deletedFlids?: readonly string[];
      readonly staleFlids?: readonly string[];
      /** FLOP: every block's outcome (interface.md). */
      readonly blocks?: readonly BlockOutcome[];
      /** Reference data: records left out, unknown DEL codes, remarks, warnings (see domain Decision). */
      readonly reference?: ReferenceNotes;
    })
  | (Common & {
      readonly kind: 'Skipped';
      readonly reason: string;
      readonly handler: string | null;
      readonly handlerVersion: number | null;
      readonly flids: readonly string[];
      readonly blocks?: readonly BlockOutcome[];
      readonly reference?: ReferenceNotes;
    })
  | (Common & Failure);

/** What a reference decision lists besides its changes (stored in the payload; warnings are also logged). */
export type { ReferenceNotes } from '../../domain/decisionPayload.ts';

export type Failure =
  | {
      /** Terminal for the FIFO, no retries; `msgx replay --class` brings it back. */
      readonly kind: 'Parked';
      readonly errorClass: ParkedClass;
      readonly error: string;
      readonly attempt: number;
    }
  | {
      readonly kind: 'Failed';
      readonly errorClass: 'INFRA';
      readonly error: string;
      readonly attempt: number;
      readonly nextAttemptAt: Date;
    }
  | {
      readonly kind: 'Dead';
      readonly errorClass: 'MALFORMED' | 'EXHAUSTED';
      readonly causeClass: RetryableClass | null;
      readonly error: string;
      readonly attempt: number;
    };

export interface HeadHistory {
  /** Attempts made so far. */
  readonly attempts: number;
  readonly firstFailureAt: Date | null;
}

/**
 * What a failure means for the head (pure): MALFORMED is dead at once; CODEC_ERROR and UNSUPPORTED
 * are PARKED at once (deterministic: a retry gives the same answer, so they must not hold the FIFO);
 * INFRA is retried after `backoffDelay` until MSGX_MAX_ATTEMPTS attempts were made or
 * MSGX_HEAD_DEADLINE_MS passed since the first failure, then DEAD(EXHAUSTED) with INFRA as cause.
 * The next try is never later than the deadline, so the verdict comes on time.
 */
export function failureVerdict(
  cfg: Pick<Config, 'maxAttempts' | 'headDeadlineMs' | 'backoffMs' | 'backoffCapMs'>,
  now: Date,
  head: HeadHistory,
  errorClass: 'MALFORMED' | RetryableClass,
  error: string,
): Failure {
  const attempt = head.attempts + 1;
  if (errorClass === 'MALFORMED') return { kind: 'Dead', errorClass, causeClass: null, error, attempt };
  if (errorClass === 'CODEC_ERROR' || errorClass === 'UNSUPPORTED') return { kind: 'Parked', errorClass, error, attempt };
  const first = head.firstFailureAt ?? now;
  const deadline = first.getTime() + cfg.headDeadlineMs;
  if (attempt >= cfg.maxAttempts || now.getTime() >= deadline) {
    const why = attempt >= cfg.maxAttempts ? `${attempt} attempts` : `head deadline ${cfg.headDeadlineMs} ms`;
    return { kind: 'Dead', errorClass: 'EXHAUSTED', causeClass: errorClass, error: `${errorClass} (${why}): ${error}`, attempt };
  }
  const next = Math.min(now.getTime() + backoffDelay(cfg, attempt), deadline);
  return { kind: 'Failed', errorClass, error, attempt, nextAttemptAt: new Date(next) };
}

/** The flids a list of changes touches, in first-seen order. */
export function flidsOf(changes: readonly Change[]): string[] {
  return runSteps(flidsSteps(changes));
}

/** `flidsOf` in steps (src/domain/steps.ts): a plan's 91,000 changes, for the pump's big heads. */
export function* flidsSteps(changes: readonly Change[]): Steps<string[]> {
  const out = new Set<string>();
  const step = stepCounter();
  for (const c of changes) {
    if (c.type === 'FlightsArchived') c.flids.forEach((f) => out.add(f));
    else if (isFlightChange(c)) out.add(c.flid);
    if (step()) yield;
  }
  return [...out];
}
