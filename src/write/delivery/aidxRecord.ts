import type { SinkRecord } from './kafkaSink.ts';
import { payloadOf, type OutboxRow } from './outboxRows.ts';

/**
 * An AIDX row → its record on the AIDX topic (docs/delivery.md "AIDX"): key = FLID, value = the
 * IATA_AIDX_FlightLegNotifRQ document (XML text, rendered by the outbox feeder as of the
 * decision), headers msg-id (when the decision came from a message), event-id and log-position.
 */
export function aidxRecord(row: OutboxRow): SinkRecord {
  const payload = payloadOf(row) as { xml?: unknown } | null;
  if (typeof payload?.xml !== 'string') throw new Error(`AIDX row ${row.eventId} has no xml payload`);
  const headers: Record<string, string> = {};
  if (row.msgId !== null) headers['msg-id'] = row.msgId;
  headers['event-id'] = row.eventId;
  headers['log-position'] = row.sourcePosition;
  headers['content-type'] = 'application/xml';
  return { key: row.flid, value: payload.xml, format: 'xml', headers, eventIds: [row.eventId] };
}
