/**
 * Operator actions that change nothing in the flights but must be on record (docs/contract/design.md
 * §12: "each action is an audited decision naming its operator"; a plan request is its own
 * `PlanRequested` decision, src/write/requests/registerRequest.ts): a decision with no message
 * (msg_id null) and no changes, naming the operator in `payload.requestedBy`. Folds, projectors
 * and the outbox ignore it (no `changes`); message(id) and flightHistory do not show it;
 * `decision_event` keeps it.
 */
import type pg from 'pg';
import { withTransaction, type PoolClient } from '../platform/db.ts';
import type { DecisionPayloads } from '../domain/decisionPayload.ts';
import { appendDecisions, lockPipeline, type NewDecision } from './appendDecisions.ts';

export type OperatorActionKind = 'RebuildRequested' | 'ReferenceRequested' | 'HistoryArchived' | 'HistoryRestored';

/** An operator action of one kind: its payload without `requestedBy`, which the action names. */
export type OperatorAction = {
  readonly [K in OperatorActionKind]: {
    readonly kind: K;
    readonly requestedBy: string;
    readonly payload: Omit<DecisionPayloads[K], 'requestedBy'>;
  };
}[OperatorActionKind];

function decisionOf(action: OperatorAction): NewDecision {
  switch (action.kind) {
    case 'RebuildRequested':
      return { msgId: null, kind: action.kind, payload: { ...action.payload, requestedBy: action.requestedBy } };
    case 'ReferenceRequested':
      return { msgId: null, kind: action.kind, payload: { ...action.payload, requestedBy: action.requestedBy } };
    case 'HistoryArchived':
      return { msgId: null, kind: action.kind, payload: { ...action.payload, requestedBy: action.requestedBy } };
    case 'HistoryRestored':
      return { msgId: null, kind: action.kind, payload: { ...action.payload, requestedBy: action.requestedBy } };
  }
}

/** Append the action inside the caller's transaction (under the pipeline lock); returns its position. */
export async function appendOperatorAction(c: PoolClient, action: OperatorAction, now: Date): Promise<string> {
  const last = await lockPipeline(c);
  const [position] = await appendDecisions(c, last, [decisionOf(action)], now);
  return position!;
}

/** Append the action in a transaction of its own (under the pipeline lock, like every append); returns its position. */
export function recordOperatorAction(pool: pg.Pool, action: OperatorAction, now: Date): Promise<string> {
  return withTransaction(pool, async (c) => {
    const last = await lockPipeline(c);
    const [position] = await appendDecisions(c, last, [decisionOf(action)], now);
    return position!;
  });
}
