/**
 * PostgreSQL NOTIFY channels shared between roles (docs/architecture.md). Notifications are sent
 * inside the writing transaction, so listeners hear of work only once it is committed.
 */
export const Channels = {
  /** ingest copied rows into inbox_message */
  inbox: 'msgx_inbox',
  /** the pump (or an operator action) appended decisions; payload: highest position */
  decision: 'msgx_decision',
  /** the outbox feeder added msg_event rows; payload: target */
  outbox: 'msgx_outbox',
  /** a projector committed a batch; payload: `name:position` */
  projection: 'msgx_projection',
  /** a projection rebuild switched tables; payload: projector name. Writers reload their model. */
  rebuilt: 'msgx_rebuilt',
} as const;
