import { changesOf } from '../../domain/decisionPayload.ts';
import type { DecisionRecord } from '../../log/readDecisions.ts';
import { eventId, flightStream, messageStream } from './streamNames.ts';

/** Where an event came from in our log; `(position, seq)` orders events inside every stream. */
export interface EventOrigin {
  readonly position: string;
  readonly seq: number;
}

export interface PlannedEvent extends EventOrigin {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

/**
 * Pure: the EventStoreDB events a batch of decisions becomes, grouped by stream in log order.
 * Each flight change goes to the stream of every flight it touches; the whole decision goes to the
 * stream of its message (seq -1, so it sorts before the decision's changes).
 */
export function planAppends(decisions: readonly DecisionRecord[]): Map<string, PlannedEvent[]> {
  const out = new Map<string, PlannedEvent[]>();
  const push = (stream: string, e: Omit<PlannedEvent, 'id'>) => {
    const list = out.get(stream) ?? [];
    list.push({ ...e, id: eventId(stream, e.position, e.seq) });
    out.set(stream, list);
  };
  for (const d of decisions) {
    const common = { position: d.position, msgId: d.msgId, recordedAt: d.recordedAt, decisionKind: d.kind };
    const msgStream = messageStream(d.msgId);
    push(msgStream, {
      position: d.position,
      seq: -1,
      type: d.kind,
      data: { position: d.position, msgId: d.msgId, kind: d.kind, handler: d.handler, handlerVersion: d.handlerVersion, flids: d.flids, payload: d.payload, recordedAt: d.recordedAt },
      metadata: { ...common, seq: -1, eventId: eventId(msgStream, d.position, -1) },
    });
    changesOf(d).forEach((change, seq) => {
      const flids = 'flid' in change ? [change.flid] : change.type === 'FlightsArchived' ? change.flids : [];
      for (const flid of flids) {
        const stream = flightStream(flid);
        push(stream, {
          position: d.position,
          seq,
          type: change.type,
          data: { ...change },
          metadata: { ...common, seq, flid, eventId: eventId(stream, d.position, seq) },
        });
      }
    });
  }
  return out;
}

/** Strictly after `mark` in (position, seq) order. */
export function isAfter(e: EventOrigin, mark: EventOrigin | null): boolean {
  if (mark === null) return true;
  const a = BigInt(e.position);
  const b = BigInt(mark.position);
  return a > b || (a === b && e.seq > mark.seq);
}
