/**
 * Operator actions that change nothing in the flights but must be on record (docs/contract/system.md
 * §12: "each action is an audited decision naming its operator"; a plan request is its own
 * `PlanRequested` decision, src/write/requests/registerRequest.ts): a decision with no message
 * (msg_id null) and no changes, naming the operator in `payload.requestedBy`. Folds, projectors
 * and the outbox ignore it (no `changes`); message(id) and flightHistory do not show it;
 * `decision_event` keeps it.
 */
import type pg from 'pg';
import { withTransaction } from '../platform/db.ts';
import { appendDecisions, lockPipeline, type DecisionKind } from './appendDecisions.ts';

export type OperatorActionKind = Extract<DecisionKind, 'RebuildRequested' | 'ReferenceRequested'>;

export interface OperatorAction {
  readonly kind: OperatorActionKind;
  readonly requestedBy: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** Append the action in a transaction of its own (under the pipeline lock, like every append); returns its position. */
export function recordOperatorAction(pool: pg.Pool, action: OperatorAction, now: Date): Promise<string> {
  return withTransaction(pool, async (c) => {
    const last = await lockPipeline(c);
    const [position] = await appendDecisions(c, last, [{ msgId: null, kind: action.kind, payload: { ...action.payload, requestedBy: action.requestedBy } }], now);
    return position!;
  });
}
