import type { SinkRecord } from './kafkaSink.ts';
import { payloadOf, type OutboxRow } from './outboxRows.ts';

/**
 * A KAFKA_MSG row → its record on the `msg` topic: key = FLID, value = the payload as stored,
 * headers msg-id (when the change came from a message), event-id and log-position. The payload is
 * parsed only for a row whose headers lack the msg-id or whose column lacks the FLID (then the
 * payload's fields are asked): the feeder's rows have both wherever there is one.
 */
export function msgRecord(row: OutboxRow): SinkRecord {
  let parsed: Record<string, unknown> | undefined;
  const payload = (): Record<string, unknown> => (parsed ??= asObject(payloadOf(row)));
  const msgId = text(row.headers.msgId) ?? text(payload().msgId) ?? row.msgId;
  const headers: Record<string, string> = {};
  if (msgId !== null) headers['msg-id'] = msgId;
  headers['event-id'] = row.eventId;
  headers['log-position'] = row.sourcePosition;
  return {
    key: row.flid ?? text(payload().flid),
    value: row.payloadJson,
    headers,
    eventIds: [row.eventId],
  };
}

function asObject(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function text(v: unknown): string | null {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return null;
}
