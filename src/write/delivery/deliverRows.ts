import type { Clock } from '../../platform/clock.ts';
import type { Config } from '../../platform/config.ts';
import type { Queryable } from '../../platform/db.ts';
import type { Faults } from '../../platform/faults.ts';
import type { Logger } from '../../platform/logger.ts';
import { FencedError, type WriterFence } from '../../platform/writerFence.ts';
import { claimRows } from './claimRows.ts';
import { asDeliveryFailure, type DeliveryFailure } from './deliveryFailure.ts';
import { failureOutcome } from './failureOutcome.ts';
import { markFailed, markSent } from './markDelivered.ts';
import type { OutboxRow } from './outboxRows.ts';
import type { Target } from './targets.ts';

export interface DeliveryContext {
  readonly pool: Queryable;
  readonly clock: Clock;
  readonly cfg: Pick<Config, 'maxAttempts' | 'backoffMs' | 'backoffCapMs'>;
  readonly log: Logger;
  /** The writer lock: rows are claimed with its epoch before each send (absent: unfenced). */
  readonly fence?: WriterFence;
  /** claimRows' grace for rows claimed by an older epoch (default CLAIM_GRACE_MS). */
  readonly claimGraceMs?: number;
  /** The fault port at 'delivery.<target>.acked' (default none). */
  readonly faults?: Faults;
}

export type StepResult =
  | { readonly kind: 'worked' }
  | { readonly kind: 'idle' }
  | { readonly kind: 'wait'; readonly until: Date };

export const WORKED: StepResult = { kind: 'worked' };
export const IDLE: StepResult = { kind: 'idle' };

/** One target's unit of work: deliver what is due at its head, or say how long to wait. */
export interface TargetWorker {
  readonly target: Target;
  step(): Promise<StepResult>;
}

/** What one send did: delivered, or failed (already recorded on the blamed rows). */
export type SendOutcome = { readonly ok: true } | { readonly ok: false; readonly failure: DeliveryFailure };

/**
 * Send `rows` with `send` (one delivery_ref per row, same order) and record the outcome:
 * all rows SENT, or the `blamed` rows (the head, or a whole schd batch) marked failed.
 * `claimed`: the rows were claimed with this process's epoch by the statement that read them
 * (schdBatch.ts); the lock is still proven before the send.
 */
export async function deliverRows(
  ctx: DeliveryContext,
  target: Target,
  rows: readonly OutboxRow[],
  blamed: readonly OutboxRow[],
  send: () => Promise<readonly unknown[]>,
  claimed = false,
): Promise<SendOutcome> {
  await claimOrThrow(ctx, target, rows, claimed);
  let refs: readonly unknown[];
  try {
    refs = await send();
  } catch (err) {
    const failure = asDeliveryFailure(err);
    const outcome = failureOutcome(ctx.cfg, blamed[0]?.attempts ?? 0, failure.transient, ctx.clock.now());
    await markFailed(ctx.pool, blamed.map((r) => r.eventId), outcome, failure.message);
    const fields = {
      target,
      eventIds: blamed.map((r) => r.eventId),
      attempts: outcome.attempts,
      transient: failure.transient,
      err: failure,
    };
    // An outage is said once per head (its first failure), not at every retry; a refused record
    // is said at every attempt (at most MSGX_MAX_ATTEMPTS of them).
    if (outcome.state === 'DEAD') ctx.log.error(fields, 'delivery DEAD: attempts used up, target moves on');
    else if (failure.transient && outcome.attempts > 1) ctx.log.debug({ ...fields, nextAttemptAt: outcome.nextAttemptAt }, 'delivery failed again');
    else ctx.log.warn({ ...fields, nextAttemptAt: outcome.nextAttemptAt }, 'delivery failed; head waits for its backoff');
    return { ok: false, failure };
  }
  ctx.faults?.reached(`delivery.${target}.acked`);
  await markSent(
    ctx.pool,
    rows.map((r, i) => ({ eventId: r.eventId, ref: refs[i] ?? null })),
    ctx.clock.now(),
  );
  const failedBefore = rows[0]?.attempts ?? 0;
  if (failedBefore > 0) ctx.log.info({ target, eventIds: rows.map((r) => r.eventId), failedBefore }, 'delivering again: head delivered after failed attempts');
  else ctx.log.debug({ target, eventIds: rows.map((r) => r.eventId) }, 'delivered');
  return { ok: true };
}

/**
 * Fenced deliveries (docs/security.md): before a send, the process must still hold the writer lock (its
 * lease is fresh) and claim every row with its epoch. Refused → FencedError: nothing is sent. A
 * lock this process does not hold, or a fence past its epoch, stops the process (WriterFence.fenced);
 * rows a predecessor still claims are tried again once its claim ages out.
 */
async function claimOrThrow(ctx: DeliveryContext, target: Target, rows: readonly OutboxRow[], claimed: boolean): Promise<void> {
  const fence = ctx.fence;
  if (!fence) return;
  // Not holding the lock (or a fence moved past ours) is never retried: the fence stops the process.
  const held = (): void => {
    try {
      fence.assertHeld();
    } catch (err) {
      if (err instanceof FencedError) fence.fenced(err, `delivery ${target}`);
      throw err;
    }
  };
  const epoch = fence.epoch();
  await fence.confirm?.();
  held();
  if (epoch === undefined || claimed) return;
  const claim = await claimRows(ctx.pool, rows.map((r) => r.eventId), epoch, ctx.claimGraceMs);
  if (!claim.ok && claim.reason === 'fenced') {
    const err = new FencedError(`${target}: not sending, another writer took the lock (writer_fence moved past epoch ${epoch})`);
    fence.fenced(err, `delivery ${target}`);
    throw err;
  }
  // A successor waits here for the rows its predecessor claimed (the grace), and tries again.
  if (!claim.ok) throw new FencedError(`${target}: not sending, a row is claimed by another writer epoch (taken over after its grace)`);
  held();
}

/** The head is waiting for its backoff. */
export function notYetDue(head: OutboxRow, now: Date): StepResult | null {
  return head.nextAttemptAt !== null && head.nextAttemptAt.getTime() > now.getTime()
    ? { kind: 'wait', until: head.nextAttemptAt }
    : null;
}
