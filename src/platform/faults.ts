/**
 * The fault port (docs/recovery.md, "Crash points"): the write side names the steps where a crash
 * leaves a distinct state on disk and calls `faults.reached(point)` there. In production the port
 * is `noFaults` and a call does nothing. The crash matrix starts msgx through a test-only entry
 * point (test/reliability/support/crashMain.ts) whose port SIGKILLs the process at the n-th hit of
 * one point — no `finally`, no COMMIT, no socket closed politely. Nothing here reads the
 * environment: the port is chosen by whoever builds the runtime.
 */

export type FaultPoint =
  /** pollOnce: rows copied inside the ingest transaction, not committed — or, on the one-statement common poll, read and not yet sent. */
  | 'ingest.uncommitted'
  /** pollOnce: the ingest transaction (rows + cursor + gaps) committed with new rows. */
  | 'ingest.committed'
  /** commitStaged: a group decided and its commit staged, its one autocommit statement not yet sent. */
  | 'pump.uncommitted'
  /** pump: decisions committed; the write model and the backfill not told yet. */
  | 'pump.committed'
  /** runBatch: a projector's rows and checkpoint written inside its transaction, not committed. */
  | `projector.${string}.uncommitted`
  /** runBatch: a projector batch committed (NOTIFY sent); its in-memory commit not done yet. */
  | `projector.${string}.committed`
  /** deliverRows: the sink (Kafka) acknowledged, the rows are not marked SENT yet. */
  | `delivery.${string}.acked`
  /** saveSnapshot: a write-model snapshot inserted inside its transaction, not committed. */
  | 'snapshot.inserted'
  /** A standby took the writer lock (epoch bumped) with its warm model; nothing decided yet. Once per process. */
  | 'writer.takeover'
  /** archiveHistory: a DEFAULT partition split into months (rows copied, it truncated) inside the transaction, not committed. */
  | 'archive.moving'
  /** archiveHistory: a month's files and checksum file written and read back; nothing recorded. */
  | 'archive.written'
  /** archiveHistory: the HistoryArchived decision and history_archive rows committed; partitions still there. */
  | 'archive.recorded'
  /** archiveHistory: the month's partitions detached and dropped inside the transaction, not committed. */
  | 'archive.dropping'
  /** restoreMonth: the month's partitions created and loaded inside the transaction, not committed. */
  | 'restore.loaded'
  /** backfill: CMINMSGS_DATE_PROCESSED / CMINMSGS_STATUS written, proc_state not marked DONE yet. */
  | 'backfill.written';

export interface Faults {
  /** The write side reached a named point (synchronously, so a kill lands exactly there). */
  reached(point: FaultPoint): void;
}

/** The production port: nothing happens at any point. */
export const noFaults: Faults = { reached: () => undefined };
