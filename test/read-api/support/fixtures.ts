import { emptyFields } from '../../../src/domain/fields.ts';
import type { FlightState } from '../../../src/domain/flight.ts';
import { emptyLists } from '../../../src/domain/lists.ts';
import type { Queryable } from '../../../src/platform/db.ts';
import { LIVE_TABLES } from '../../../src/readModel/flightTables.ts';
import { writeFlights } from '../../../src/projections/writeFlights.ts';

/** A flight state with defaults; times are UTC ISO instants. */
export function flight(flid: string, over: Partial<FlightState> = {}): FlightState {
  return {
    ...emptyFields(),
    ...emptyLists(),
    flid,
    operationDay: '2025-03-14',
    deleted: false,
    deletedReason: null,
    stateVersion: 1,
    lastPosition: '1',
    lastMsgId: null,
    updatedAt: '2025-03-14T01:00:00.000Z',
    ...over,
  };
}

export async function insertFlights(q: Queryable, flights: readonly FlightState[]): Promise<void> {
  await writeFlights(q, LIVE_TABLES, flights);
}

export async function insertMessage(
  q: Queryable,
  m: { id: string; xml: string; state: string; errorClass?: string | null; lastError?: string | null; attempts?: number; identityKey?: string | null; ingestedAt?: string; meta?: { sndr: string; type: string; styp: string; seqn: string } },
): Promise<void> {
  const at = m.ingestedAt ?? '2025-03-14T01:00:00Z';
  await q.query(
    `INSERT INTO inbox_message (msg_id, received_at, ingested_at, sndr, type, styp, seqn, raw_xml) VALUES ($1, $2, $2, $3, $4, $5, $6, $7)`,
    [m.id, at, m.meta?.sndr ?? null, m.meta?.type ?? null, m.meta?.styp ?? null, m.meta?.seqn ?? null, m.xml],
  );
  await q.query(
    `INSERT INTO proc_state (msg_id, state, identity_key, error_class, last_error, attempts, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [m.id, m.state, m.identityKey ?? null, m.errorClass ?? null, m.lastError ?? null, m.attempts ?? 0, at],
  );
}
