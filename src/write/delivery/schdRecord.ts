import type { SinkRecord } from './kafkaSink.ts';
import { compareIds, type OutboxRow } from './outboxRows.ts';

/**
 * Of a claimed KAFKA_SCHD batch keep only the newest row per FLID (the highest event_id), in
 * event_id order. Rows without a FLID are kept as they are.
 */
export function newestPerFlid(rows: readonly OutboxRow[]): OutboxRow[] {
  const newest = new Map<string, OutboxRow>();
  for (const r of rows) {
    const key = r.flid ?? `#${r.eventId}`;
    const seen = newest.get(key);
    if (!seen || compareIds(r.eventId, seen.eventId) > 0) newest.set(key, r);
  }
  return [...newest.values()].sort((a, b) => compareIds(a.eventId, b.eventId));
}

/**
 * The key of every `schd` record: one key, so on a topic of several partitions every batch lands
 * in the same partition and a consumer reads each flight's records in log order
 * (docs/delivery.md, "Partitions").
 */
export const SCHD_KEY = 'schd';

/**
 * A whole KAFKA_SCHD batch → ONE record on the `schd` topic: value = JSON array of the newest
 * flight record per FLID, each as stored (msg_event.payload is json text, migration 340). Headers name the batch (first/last event id, highest log position,
 * number of flights); eventIds lists every row the record settles, superseded ones included.
 */
export function schdRecord(batch: readonly OutboxRow[]): SinkRecord {
  const kept = newestPerFlid(batch);
  const ids = batch.map((r) => r.eventId).sort(compareIds);
  const positions = batch.map((r) => r.sourcePosition).sort(compareIds);
  return {
    key: SCHD_KEY,
    value: `[${kept.map((r) => r.payloadJson).join(',')}]`,
    headers: {
      'event-id-first': ids[0] ?? '',
      'event-id-last': ids[ids.length - 1] ?? '',
      'log-position': positions[positions.length - 1] ?? '',
      flights: String(kept.length),
    },
    eventIds: ids,
  };
}
