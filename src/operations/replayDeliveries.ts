import type pg from 'pg';
import type { Clock } from '../platform/clock.ts';
import { withTransaction } from '../platform/db.ts';
import { appendDecisions, lockPipeline, type DecisionKind } from '../log/appendDecisions.ts';
import { compareIds } from '../write/delivery/outboxRows.ts';
import type { Target } from '../domain/contract.ts';
import { Channels, notify } from '../platform/channels.ts';

export interface ReplayRequest {
  readonly target: Target;
  /** Only these event ids; all DEAD rows of the target when absent. */
  readonly eventIds?: readonly string[];
  /** Who asked (user@host), kept in the audit decision. */
  readonly requestedBy?: string;
}

export interface ReplayResult {
  /** Rows moved DEAD → PENDING, ascending. */
  readonly replayed: readonly string[];
  /** Requested ids that are not DEAD rows of this target (left alone). */
  readonly notDead: readonly string[];
  /** Position of the DeliveryReplayRequested decision; null when nothing was replayed. */
  readonly position: string | null;
}

/** Operator decision kind of this module (not a message outcome). */
const DELIVERY_REPLAY_REQUESTED = 'DeliveryReplayRequested' satisfies DecisionKind;

/**
 * Operator action: DEAD deliveries of a target back to PENDING with attempts reset, and the action
 * appended to the log as a `DeliveryReplayRequested` decision (msg_id null, payload
 * `{ target, eventIds, requestedBy? }`) — one transaction, under the pipeline lock, so the position is
 * last_position + 1. The dispatcher is woken by NOTIFY msgx_outbox at commit. Replayed rows keep
 * their event_id, so they go out before the target's newer pending rows.
 */
export async function replayDeadDeliveries(pool: pg.Pool, clock: Clock, req: ReplayRequest): Promise<ReplayResult> {
  return withTransaction(pool, async (c) => {
    const last = await lockPipeline(c);
    const { rows } = await c.query<{ eventId: string; flid: string | null }>(
      `UPDATE msg_event SET state = 'PENDING', attempts = 0, next_attempt_at = NULL, batch_id = NULL
        WHERE target = $1 AND state = 'DEAD' AND ($2::bigint[] IS NULL OR event_id = ANY($2::bigint[]))
        RETURNING event_id AS "eventId", flid`,
      [req.target, req.eventIds ?? null],
    );
    const replayed = rows.map((r) => r.eventId).sort(compareIds);
    const notDead = (req.eventIds ?? []).filter((id) => !replayed.includes(String(BigInt(id))));
    if (replayed.length === 0) return { replayed, notDead, position: null };

    const flids = [...new Set(rows.map((r) => r.flid).filter((f): f is string => f !== null))].sort();
    const [position] = await appendDecisions(
      c,
      last,
      [{ msgId: null, kind: DELIVERY_REPLAY_REQUESTED, flids, payload: { target: req.target, eventIds: replayed, ...(req.requestedBy ? { requestedBy: req.requestedBy } : {}) } }],
      clock.now(),
    );
    await notify(c, Channels.outbox, req.target);
    return { replayed, notDead, position: position ?? null };
  });
}
