import { decode } from '../../domain/codec/decode.ts';
import { decide } from '../../domain/decide.ts';
import type { FlightState } from '../../domain/flight.ts';
import { identityKey } from '../../domain/identity.ts';
import type { Config } from '../../platform/config.ts';
import type { Head } from './findHeads.ts';
import { failureVerdict, type Outcome } from './outcome.ts';

export interface EvaluateContext {
  readonly cfg: Pick<Config, 'airportTz' | 'identityIncludeDay' | 'maxAttempts' | 'headDeadlineMs' | 'backoffMs' | 'backoffCapMs'>;
  readonly now: Date;
  readonly flights: ReadonlyMap<string, FlightState>;
  /** The message that already holds `identity` (other than `msgId`), if any. */
  identityOwner(identity: string, msgId: string): Promise<string | null>;
}

/**
 * decode → identity → decide for one head message; no writes. The identity is bound at the first
 * successful decode; a later message with the same identity ends SKIPPED `duplicate-of:<id>` and
 * never reaches `decide`. A throwing handler is a bug, retryable after a fix: CODEC_ERROR.
 */
export async function evaluate(head: Head, ctx: EvaluateContext): Promise<Outcome> {
  if (head.nulReplaced) {
    const error = 'message contains U+0000, which XML does not allow (kept with U+FFFD in its place)';
    return { ...failureVerdict(ctx.cfg, ctx.now, head, 'MALFORMED', error), identity: null, meta: null };
  }
  const decoded = decode(head.rawXml, { tz: ctx.cfg.airportTz });
  if (!decoded.ok) {
    const verdict = failureVerdict(ctx.cfg, ctx.now, head, decoded.errorClass, decoded.error);
    return { ...verdict, identity: null, meta: decoded.meta ?? null };
  }
  const message = decoded.message;
  const identity = identityKey(message.meta, { includeDay: ctx.cfg.identityIncludeDay });
  if (head.identityKey !== identity) {
    const owner = await ctx.identityOwner(identity, head.msgId);
    if (owner !== null) {
      return {
        kind: 'Skipped',
        reason: `duplicate-of:${owner}`,
        handler: null,
        handlerVersion: null,
        flids: [],
        identity: null,
        meta: message.meta,
      };
    }
  }
  let decision;
  try {
    decision = decide(ctx.flights, message);
  } catch (err) {
    const error = `decide failed: ${err instanceof Error ? err.message : String(err)}`;
    return { ...failureVerdict(ctx.cfg, ctx.now, head, 'CODEC_ERROR', error), identity, meta: message.meta };
  }
  const common = { identity, meta: message.meta, handler: decision.handler, handlerVersion: decision.handlerVersion };
  if (decision.skipped !== undefined) {
    return { ...common, kind: 'Skipped', reason: decision.skipped, flids: [...(decision.unknownFlids ?? []), ...(decision.deletedFlids ?? [])] };
  }
  return {
    ...common,
    kind: 'Applied',
    changes: decision.changes,
    ...(decision.unknownFlids ? { unknownFlids: decision.unknownFlids } : {}),
    ...(decision.deletedFlids ? { deletedFlids: decision.deletedFlids } : {}),
  };
}
