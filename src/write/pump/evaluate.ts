import { decideSteps, type DecideOptions, type Decider, type Decision } from '../../domain/decide.ts';
import { runSteps, type Steps } from '../../domain/steps.ts';
import type { FlightState } from '../../domain/flight.ts';
import type { Message } from '../../domain/message.ts';
import type { PlanRequests } from '../../domain/planRequests.ts';
import { EMPTY_REFERENCE, type ReferenceState } from '../../domain/reference/state.ts';
import type { Config } from '../../platform/config.ts';
import { DayNotFetched } from '../snapshot/dayNotFetched.ts';
import { decodeHead, type DecodedHead } from './decodeHead.ts';
import type { Head } from './findHeads.ts';
import { failureVerdict, type HeadHistory, type Outcome, type ReferenceNotes } from './outcome.ts';

export interface JudgeContext {
  readonly cfg: Pick<Config, 'airportTz' | 'identityIncludeDay' | 'airportIata' | 'maxAttempts' | 'headDeadlineMs' | 'backoffMs' | 'backoffCapMs'>;
  readonly now: Date;
  readonly flights: ReadonlyMap<string, FlightState>;
  /** The reference store (reference messages are decided against it); empty when absent. */
  readonly reference?: ReferenceState;
  /** Our plan requests (a RESP naming one deletes within its window); none when absent. */
  readonly planRequests?: PlanRequests;
  /** The message that already holds the head's identity (see identityToCheck), if any. */
  readonly owner: string | null;
  /** The handlers (default: the registry's, `decide`); a test may inject another set. */
  readonly decide?: Decider;
}

export interface EvaluateContext extends Omit<JudgeContext, 'owner'> {
  /** The message that already holds `identity` (other than `msgId`), if any. */
  identityOwner(identity: string, msgId: string): Promise<string | null>;
}

/** A head decoded and identified (or its verdict, when it cannot be decoded). Pure. */
export type ReadHead =
  | { readonly ok: false; readonly outcome: Outcome }
  | { readonly ok: true; readonly message: Message; readonly identity: string | null };

/** A decoded head read: decoded, or the verdict of its decode failure at `now`. */
export function readDecoded(head: HeadHistory, decoded: DecodedHead, cfg: JudgeContext['cfg'], now: Date): ReadHead {
  if (decoded.ok) return decoded;
  const verdict = failureVerdict(cfg, now, head, decoded.errorClass, decoded.error);
  return { ok: false, outcome: { ...verdict, identity: null, meta: decoded.meta } };
}

export function readHead(head: Head, cfg: JudgeContext['cfg'], now: Date): ReadHead {
  return readDecoded(head, decodeHead(head.rawXml, head.nulReplaced, cfg), cfg, now);
}

/** The identity whose owner must be looked up before judging (null: none, it is this head's already). */
export function identityToCheck(head: Head, read: ReadHead): string | null {
  return read.ok && read.identity !== null && head.identityKey !== read.identity ? read.identity : null;
}

/**
 * identity → decide for a read head; no I/O. The identity is bound at the first successful decode, and
 * a later message with the same identity ends SKIPPED `duplicate-of:<id>` and never reaches
 * `decide`. A throwing handler is a bug, retryable after a fix: CODEC_ERROR.
 */
export function judge(head: Pick<Head, 'msgId' | 'attempts' | 'firstFailureAt'>, read: ReadHead, ctx: JudgeContext): Outcome {
  return runSteps(judgeSteps(head, read, ctx));
}

/** `judge` in steps (src/domain/steps.ts): the pump judges a big head a slice at a time. An injected `decide` runs at one go. */
export function* judgeSteps(head: Pick<Head, 'msgId' | 'attempts' | 'firstFailureAt'>, read: ReadHead, ctx: JudgeContext): Steps<Outcome> {
  if (!read.ok) return read.outcome;
  const { message, identity } = read;
  if (ctx.owner !== null) {
    return {
      kind: 'Skipped',
      reason: `duplicate-of:${ctx.owner}`,
      handler: null,
      handlerVersion: null,
      flids: [],
      identity: null,
      meta: message.meta,
    };
  }
  let decision: Decision;
  try {
    // With its msg id: a replayed message does not overwrite what a later one set (stale).
    const opts: DecideOptions = { msgId: head.msgId };
    if (ctx.planRequests) opts.planRequests = ctx.planRequests;
    const reference = ctx.reference ?? EMPTY_REFERENCE;
    decision = ctx.decide ? ctx.decide(ctx.flights, message, reference, opts) : yield* decideSteps(ctx.flights, message, reference, opts);
  } catch (err) {
    // A snapshot day not fetched yet is no verdict: the pump waits for it and decides again (WriteModel.deciding).
    if (err instanceof DayNotFetched) throw err;
    const error = `decide failed: ${err instanceof Error ? err.message : String(err)}`;
    return { ...failureVerdict(ctx.cfg, ctx.now, head, 'CODEC_ERROR', error), identity, meta: message.meta };
  }
  // One object built key by key (the order the pump always wrote: identity, meta, handler,
  // handlerVersion, reference?, kind, …), no spreads of small conditional objects: judge runs once
  // per message (and per message again in msgx redecide).
  const out: Record<string, unknown> = { identity, meta: message.meta, handler: decision.handler, handlerVersion: decision.handlerVersion };
  const notes = referenceNotes(decision);
  if (notes) out.reference = notes;
  const blocks = decision.blocks && decision.blocks.length > 1 ? decision.blocks : undefined;
  if (decision.skipped !== undefined) {
    out.kind = 'Skipped';
    out.reason = decision.skipped;
    out.flids = skippedFlids(decision);
    if (blocks) out.blocks = blocks;
    return out as unknown as Outcome;
  }
  out.kind = 'Applied';
  out.changes = decision.changes;
  if (decision.unknownFlids) out.unknownFlids = decision.unknownFlids;
  if (decision.deletedFlids) out.deletedFlids = decision.deletedFlids;
  if (decision.staleFlids) out.staleFlids = decision.staleFlids;
  if (blocks) out.blocks = blocks;
  return out as unknown as Outcome;
}

/** The flights a skip names: unknown, deleted, stale, each once, in that order. */
function skippedFlids(d: Decision): string[] {
  const flids = new Set<string>();
  for (const list of [d.unknownFlids, d.deletedFlids, d.staleFlids]) if (list) for (const f of list) flids.add(f);
  return [...flids];
}

function referenceNotes(d: Decision): ReferenceNotes | undefined {
  if (!d.skippedRecords && !d.unknownRecords && !d.notes && !d.warnings) return undefined;
  const out: { -readonly [K in keyof ReferenceNotes]: ReferenceNotes[K] } = {};
  if (d.skippedRecords) out.skippedRecords = d.skippedRecords;
  if (d.unknownRecords) out.unknownRecords = d.unknownRecords;
  if (d.notes) out.notes = d.notes;
  if (d.warnings) out.warnings = d.warnings;
  return out;
}

/**
 * decode → identity → decide for one head message, looking its identity's owner up on its own.
 * The pump batches that lookup per group (prepareGroup); this one-message form is the bench's
 * in-process baseline of the pump's decision path (bench/harness/domainMirror.ts).
 */
export async function evaluate(head: Head, ctx: EvaluateContext): Promise<Outcome> {
  const read = readHead(head, ctx.cfg, ctx.now);
  const identity = identityToCheck(head, read);
  const owner = identity === null ? null : await ctx.identityOwner(identity, head.msgId);
  return judge(head, read, { ...ctx, owner });
}
