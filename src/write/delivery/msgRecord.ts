import type { SinkRecord } from './kafkaSink.ts';
import type { OutboxRow } from './outboxRows.ts';

/**
 * A KAFKA_MSG row → its record on the `msg` topic: key = FLID, value = the payload as JSON,
 * headers msg-id (when the change came from a message), event-id and log-position.
 */
export function msgRecord(row: OutboxRow): SinkRecord {
  const payload = asObject(row.payload);
  const msgId = text(row.headers.msgId) ?? text(payload.msgId) ?? row.msgId;
  const headers: Record<string, string> = {};
  if (msgId !== null) headers['msg-id'] = msgId;
  headers['event-id'] = row.eventId;
  headers['log-position'] = row.sourcePosition;
  return {
    key: row.flid ?? text(payload.flid),
    value: JSON.stringify(row.payload),
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
