/**
 * The names the roles share about the store's rows (docs/architecture.md "Shared contracts"):
 * defined once here, so the writer, the projectors, the read API and the operator actions agree.
 * Each list is the one place to extend — a new delivery target is one more entry of TARGETS.
 */

/** The outbox targets (msg_event.target) the dispatcher drains, in the order status and metrics show them. */
export const TARGETS = ['KAFKA_MSG', 'KAFKA_SCHD', 'COUTMSGS', 'AIDX'] as const;
export type Target = (typeof TARGETS)[number];

export function isTarget(s: string): s is Target {
  return (TARGETS as readonly string[]).includes(s);
}

/** The failure classes an operator may replay (proc_state.error_class); MALFORMED never is. */
export const REPLAY_CLASSES = ['CODEC_ERROR', 'UNSUPPORTED', 'INFRA', 'EXHAUSTED'] as const;
export type ReplayClass = (typeof REPLAY_CLASSES)[number];

export function isReplayClass(s: string): s is ReplayClass {
  return (REPLAY_CLASSES as readonly string[]).includes(s);
}

/** The long operator actions whose progress operation_progress records, and how each ends. */
export const OPERATION_KINDS = ['rebuild-flights', 'rebuild-reference', 'redecide'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];
export const OPERATION_OUTCOMES = ['done', 'failed', 'cancelled', 'refused'] as const;
export type OperationOutcome = (typeof OPERATION_OUTCOMES)[number];

/**
 * The single writer's advisory lock key (docs/operations.md "Single writer and standby"): the writer takes it, a
 * standby waits for it, the status reads who holds it. The migrator uses 7_735_001.
 */
export const WRITER_LOCK_KEY = 7_735_002;

/**
 * A waiting standby holds this advisory key in shared mode while it waits for WRITER_LOCK_KEY, so
 * that the status counts the standbys (docs/operations.md "Single writer and standby").
 */
export const STANDBY_LOCK_KEY = 7_735_003;
