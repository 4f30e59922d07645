/**
 * Progress of a long operator command (`msgx rebuild`, `msgx redecide`, a rebuild started from the
 * console) in `operation_progress` (migration 130), for the console to show through the read API —
 * also when the command runs in another process than the service.
 *
 * Written at a bounded rate, never per event: at once when the phase changes, else at most once
 * per `intervalMs`; a heartbeat every `heartbeatMs` keeps `updated_at` fresh through a long step,
 * so a reader can tell a process that stopped reporting (killed) from a slow one. The row's times
 * are the database's now() for the same reason (readers compare them with their own now()).
 * Best effort: a failing write is logged once and never fails the operation it describes.
 */
import os from 'node:os';
import type { OperationKind, OperationOutcome } from '../domain/contract.ts';
import type { Clock } from '../platform/clock.ts';
import type { Queryable } from '../platform/db.ts';
import type { Logger } from '../platform/logger.ts';

export type { OperationKind, OperationOutcome };

export interface ProgressSnapshot {
  readonly phase?: string;
  readonly done: number;
  /** Null while not known. */
  readonly total?: number | null;
}

export interface OperationStart {
  readonly kind: OperationKind;
  /** --operator, user@host, console:<label>/<name>. */
  readonly startedBy: string;
  /** The arguments worth showing (`--from 0 --flight 880001`). */
  readonly detail?: string;
}

export interface OperationRecorder {
  /** The row's id; null when it could not be recorded (then every call is a no-op). */
  readonly id: string | null;
  /** Keep the latest progress; written now when due (phase changed, interval passed), else later. Never waits or throws. */
  update(p: ProgressSnapshot): void;
  /** Write the outcome and stop the heartbeat. Waits for the write; never throws. */
  finish(state: OperationOutcome, message: string): Promise<void>;
}

export interface RecorderOptions {
  readonly intervalMs?: number;
  readonly heartbeatMs?: number;
}

/** Finished rows older than this are deleted when the next operation starts: the table stays small. */
const KEEP_DAYS = 7;
const MAX_TEXT = 2000;

const UPDATE = `UPDATE operation_progress SET updated_at = now(), phase = $2, done = $3, total = $4
                 WHERE id = $1 AND state = 'running'`;

export async function startOperation(db: Queryable, clock: Clock, log: Logger, op: OperationStart, opts: RecorderOptions = {}): Promise<OperationRecorder> {
  const intervalMs = opts.intervalMs ?? 1000;
  const heartbeatMs = opts.heartbeatMs ?? 5000;
  let id: string;
  try {
    await db.query(`DELETE FROM operation_progress WHERE updated_at < now() - make_interval(days => $1)`, [KEEP_DAYS]);
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO operation_progress (kind, detail, started_by, host, pid) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [op.kind, op.detail?.slice(0, MAX_TEXT) ?? null, op.startedBy.slice(0, 200), os.hostname(), process.pid],
    );
    id = rows[0]!.id;
  } catch (err) {
    log.warn({ err, kind: op.kind }, 'progress not recorded (the console will not show this operation)');
    return { id: null, update: () => undefined, finish: async () => undefined };
  }

  let current: ProgressSnapshot = { done: 0, total: null };
  let pending = false;
  let writtenPhase: string | undefined;
  let writtenAt = clock.now().getTime();
  let writing: Promise<void> | null = null;
  let finished = false;
  let warned = false;
  const stopHeartbeat = new AbortController();

  const warnOnce = (err: unknown): void => {
    if (warned) return;
    warned = true;
    log.warn({ err, operation: id }, 'could not record progress (the operation goes on)');
  };
  const due = (): boolean => current.phase !== writtenPhase || clock.now().getTime() - writtenAt >= intervalMs;
  const flush = (): void => {
    if (finished || writing) return;
    const p = current;
    pending = false;
    writtenPhase = p.phase;
    writtenAt = clock.now().getTime();
    writing = db
      .query(UPDATE, [id, p.phase ?? null, Math.round(p.done), p.total ?? null])
      .then(() => undefined, warnOnce)
      .finally(() => {
        writing = null;
        if (pending && due()) flush();
      });
  };
  void (async () => {
    while (!finished) {
      await clock.sleep(heartbeatMs, stopHeartbeat.signal);
      if (!finished) flush();
    }
  })();

  return {
    id,
    update(p) {
      current = p;
      pending = true;
      if (due()) flush();
    },
    async finish(state, message) {
      if (finished) return;
      finished = true;
      stopHeartbeat.abort();
      await writing;
      await db
        .query(
          `UPDATE operation_progress SET updated_at = now(), finished_at = now(), state = $2, message = $3, phase = $4, done = $5, total = $6
            WHERE id = $1`,
          [id, state, message.slice(0, MAX_TEXT), current.phase ?? null, Math.round(current.done), current.total ?? null],
        )
        .catch(warnOnce);
    },
  };
}
