import type { Mailbox } from '../../platform/mailbox/port.ts';
import { deliverRows, IDLE, notYetDue, WORKED, type DeliveryContext, type StepResult, type TargetWorker } from './deliverRows.ts';
import { DeliveryFailure } from './deliveryFailure.ts';
import { payloadOf, readHead } from './outboxRows.ts';

/**
 * COUTMSGS: one outbound mailbox row per msg_event row. The payload is `{ clobMsg, routingId? }`
 * (the outbox feeder's CoutmsgsPayload); ROUTINGID is the payload's override or
 * MSGX_COUTMSGS_ROUTINGID. delivery_ref `{ coutmsgsId }`.
 */
export function createCoutmsgsWorker(ctx: DeliveryContext, mailbox: Mailbox, routingId: string): TargetWorker {
  return {
    target: 'COUTMSGS',
    async step(): Promise<StepResult> {
      const [head] = await readHead(ctx.pool, 'COUTMSGS', 1);
      if (!head) return IDLE;
      const wait = notYetDue(head, ctx.clock.now());
      if (wait) return wait;
      await deliverRows(ctx, 'COUTMSGS', [head], [head], async () => {
        const out = outboundRow(payloadOf(head), routingId);
        try {
          const coutmsgsId = await mailbox.insertOutbound({ ...out, insertedAt: ctx.clock.now() });
          return [{ coutmsgsId }];
        } catch (err) {
          throw classifyMailboxError(err);
        }
      });
      return WORKED;
    },
  };
}

function outboundRow(payload: unknown, defaultRoutingId: string): { xml: string; routingId: string } {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as { clobMsg?: unknown; routingId?: unknown };
  if (typeof p.clobMsg !== 'string' || p.clobMsg.trim() === '') {
    throw new DeliveryFailure('COUTMSGS payload has no clobMsg text', false);
  }
  const routingId = typeof p.routingId === 'string' && p.routingId.trim() !== '' ? p.routingId : defaultRoutingId;
  return { xml: p.clobMsg, routingId };
}

/**
 * Data errors (SQLSTATE class 22, data exception, or 23, constraint violation — from MySQL's
 * `sqlState` or PostgreSQL's `code`) are about this row: permanent. Everything else (connection
 * lost, lock timeout, server gone) is the mailbox being unavailable: transient.
 */
export function classifyMailboxError(err: unknown): DeliveryFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { sqlState?: unknown; code?: unknown };
  const state = typeof e.sqlState === 'string' ? e.sqlState : typeof e.code === 'string' ? e.code : '';
  const permanent = /^2[23][0-9A-Z]{3}$/.test(state);
  const message = `COUTMSGS insert failed: ${err instanceof Error ? err.message : String(err)}`;
  return new DeliveryFailure(message, !permanent, { cause: err });
}
