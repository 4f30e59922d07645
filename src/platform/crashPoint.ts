/**
 * TEST-ONLY crash points (docs/recovery.md, "Crash points"). Inert unless the process was started
 * with `MSGX_TEST_CRASH_AT=<point>:<n>`: then the n-th time `crashPoint(<point>)` is reached, the
 * process SIGKILLs itself right there — no `finally`, no COMMIT, no socket closed politely, exactly
 * what an OOM kill or a power cut leaves behind. The crash matrix
 * (test/reliability/crashMatrix.int.test.ts) uses it to die at every named step of the write side.
 *
 * Unset (production), a call is one comparison against null. This is the one module besides
 * config.ts that reads process.env: the variable is deliberately not part of Config, so it can
 * never be set from a configuration file or show up in `msgx status`.
 */

export type CrashPoint =
  /** pollOnce: rows copied inside the ingest transaction, not committed. */
  | 'ingest.uncommitted'
  /** pollOnce: the ingest transaction (rows + cursor + gaps) committed with new rows. */
  | 'ingest.committed'
  /** commitDecisions: decisions appended and proc_state advanced inside the transaction, not committed. */
  | 'pump.uncommitted'
  /** pump: decisions committed; the write model and the backfill not told yet. */
  | 'pump.committed'
  /** runBatch: a projector's rows and checkpoint written inside its transaction, not committed. */
  | `projector.${string}.uncommitted`
  /** runBatch: a projector batch committed (NOTIFY sent); its in-memory commit not done yet. */
  | `projector.${string}.committed`
  /** deliverRows: the sink (Kafka) acknowledged, the rows are not marked SENT yet. */
  | `delivery.${string}.acked`
  /** backfill: CMINMSGS_DATE_PROCESSED / CMINMSGS_STATUS written, proc_state not marked DONE yet. */
  | 'backfill.written';

export const CRASH_AT_VARIABLE = 'MSGX_TEST_CRASH_AT';

export interface CrashArm {
  readonly point: string;
  /** Die on this hit (1 = the first time the point is reached). */
  readonly hit: number;
}

/** Parse `<point>:<n>`; undefined/empty → null (inert). A malformed value throws, naming the variable. */
export function parseCrashAt(value: string | undefined): CrashArm | null {
  if (value === undefined || value.trim() === '') return null;
  const m = /^([a-z]+(?:\.[A-Za-z_]+)+):([1-9]\d*)$/.exec(value.trim());
  if (!m) throw new Error(`${CRASH_AT_VARIABLE}: must be <point>:<n>, e.g. pump.committed:2 (got ${JSON.stringify(value)})`);
  return { point: m[1]!, hit: Number(m[2]) };
}

const armed = parseCrashAt(process.env[CRASH_AT_VARIABLE]);
let hits = 0;

/** A named point of the write side; kills the process on the armed hit, does nothing otherwise. */
export function crashPoint(point: CrashPoint): void {
  if (armed === null || point !== armed.point) return;
  hits += 1;
  if (hits === armed.hit) process.kill(process.pid, 'SIGKILL');
}
