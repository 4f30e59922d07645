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
  /** Its data and metadata as JSON, in bytes: what the server counts against its MaxAppendSize. */
  readonly bytes: number;
}

const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

/**
 * What an event too large for one append carries instead of its data (docs/scaling.md
 * "EventStoreDB"): `keep` (the decision's or the change's identifying fields) and a note of what
 * was left out, with the log position where msgx keeps it whole.
 */
function bounded(keep: Record<string, unknown>, bytes: number, position: string, maxBytes: number): Record<string, unknown> {
  return {
    ...keep,
    omitted: {
      bytes,
      maxAppendBytes: maxBytes,
      reason: `larger than one append may be (MSGX_ESDB_MAX_APPEND_BYTES): the whole of it is in msgx's decision log at position ${position}`,
    },
  };
}

/**
 * Pure: the EventStoreDB events a batch of decisions becomes, grouped by stream in log order.
 * Each flight change goes to the stream of every flight it touches; the whole decision goes to the
 * stream of its message (seq -1, so it sorts before the decision's changes). An event larger than
 * `maxEventBytes` (a plan of 21,000 flights is a decision of ~46 MB) goes in its bounded form:
 * the decision without its payload and flids, a change with its type and flid only, each naming
 * its size and log position (`bounded`); the server would refuse it whole, every time.
 */
export function planAppends(decisions: readonly DecisionRecord[], maxEventBytes = Number.POSITIVE_INFINITY): Map<string, PlannedEvent[]> {
  const out = new Map<string, PlannedEvent[]>();
  const push = (stream: string, e: Omit<PlannedEvent, 'id' | 'bytes'>, keep: Record<string, unknown>, dataBytes = jsonBytes(e.data)) => {
    const list = out.get(stream) ?? [];
    const metaBytes = jsonBytes(e.metadata);
    const bytes = dataBytes + metaBytes;
    if (bytes <= maxEventBytes) list.push({ ...e, id: eventId(stream, e.position, e.seq), bytes });
    else {
      const data = bounded(keep, bytes, e.position, maxEventBytes);
      list.push({ ...e, data, id: eventId(stream, e.position, e.seq), bytes: jsonBytes(data) + metaBytes });
    }
    out.set(stream, list);
  };
  for (const d of decisions) {
    const common = { position: d.position, msgId: d.msgId, recordedAt: d.recordedAt, decisionKind: d.kind };
    const msgStream = messageStream(d.msgId);
    const changes = changesOf(d);
    const decision = { position: d.position, msgId: d.msgId, kind: d.kind, handler: d.handler, handlerVersion: d.handlerVersion, recordedAt: d.recordedAt };
    push(msgStream, {
      position: d.position,
      seq: -1,
      type: d.kind,
      data: { ...decision, flids: d.flids, payload: d.payload },
      metadata: { ...common, seq: -1, eventId: eventId(msgStream, d.position, -1) },
    }, { ...decision, flidCount: d.flids.length, changeCount: changes.length });
    changes.forEach((change, seq) => {
      const flids = 'flid' in change ? [change.flid] : change.type === 'FlightsArchived' ? change.flids : [];
      const dataBytes = flids.length === 0 ? 0 : jsonBytes(change); // once: the same data goes to each flight's stream
      for (const flid of flids) {
        const stream = flightStream(flid);
        push(stream, {
          position: d.position,
          seq,
          type: change.type,
          data: { ...change },
          metadata: { ...common, seq, flid, eventId: eventId(stream, d.position, seq) },
        }, { type: change.type, flid }, dataBytes);
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
