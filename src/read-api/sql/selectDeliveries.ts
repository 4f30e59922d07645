import type { Queryable } from '../../platform/db.ts';

export interface DeliveryRecord {
  readonly eventId: string;
  readonly target: string;
  readonly state: string;
  readonly attempts: number;
  readonly sentAt: Date | null;
  readonly lastError: string | null;
  readonly ref: unknown;
  readonly sourcePosition: string;
  readonly flid: string | null;
  readonly createdAt: Date;
}

/** Outbox rows caused by the given decisions, in event order. */
export async function selectDeliveriesByPositions(q: Queryable, positions: readonly string[]): Promise<DeliveryRecord[]> {
  if (positions.length === 0) return [];
  const { rows } = await q.query<DeliveryRecord>(
    `SELECT event_id::text AS "eventId", target, state, attempts, sent_at AS "sentAt", last_error AS "lastError",
            delivery_ref AS ref, source_position::text AS "sourcePosition", flid, created_at AS "createdAt"
       FROM msg_event WHERE source_position = ANY($1::bigint[]) ORDER BY event_id`,
    [positions],
  );
  return rows;
}
