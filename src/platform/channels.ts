/**
 * PostgreSQL NOTIFY channels shared between roles (docs/architecture.md): the one place their names
 * are written (test/platform/channels.unit.test.ts keeps it so). Notifications are sent inside the
 * writing transaction, so listeners hear of work only once it is committed.
 */
import type { Queryable } from './db.ts';

export const Channels = {
  /** ingest copied rows into inbox_message (or a replay reset some); payload: highest id, or 'replay' */
  inbox: 'msgx_inbox',
  /** the pump (or an operator action) appended decisions; payload: highest position */
  decision: 'msgx_decision',
  /** the outbox feeder added msg_event rows (or a replay reset some); payload: target */
  outbox: 'msgx_outbox',
  /** a projector committed a batch; payload: `name:position` */
  projection: 'msgx_projection',
  /** a projection rebuild switched tables; payload: projector name. Writers reload their model. */
  rebuilt: 'msgx_rebuilt',
} as const;

export type Channel = (typeof Channels)[keyof typeof Channels];

/** NOTIFY `channel` with `payload` (inside the caller's transaction: delivered at its COMMIT). */
export async function notify(q: Queryable, channel: Channel, payload: string): Promise<void> {
  await q.query('SELECT pg_notify($1, $2)', [channel, payload]);
}
