/**
 * What a stopping writer leaves to the next start (docs/operations.md "Stopping"), read from
 * PostgreSQL — where all of it is recorded, so the next start re-drives it and nothing is lost:
 * undecided messages (proc_state), CMINMSGS write-backs (proc_state.backfill_state PENDING),
 * deliveries (msg_event PENDING), and decisions the projectors have not applied yet (checkpoints).
 */
import type { Queryable } from '../platform/db.ts';
import type { Logger } from '../platform/logger.ts';

export interface LeftAtStop {
  readonly undecided: number;
  readonly writeBacks: number;
  readonly deliveries: number;
  readonly unprojected: number;
}

export async function leftAtStop(q: Queryable): Promise<LeftAtStop> {
  const { rows } = await q.query<LeftAtStop>(
    `SELECT (SELECT count(*)::int FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS undecided,
            (SELECT count(*)::int FROM proc_state WHERE backfill_state = 'PENDING') AS "writeBacks",
            (SELECT count(*)::int FROM msg_event WHERE state = 'PENDING') AS deliveries,
            GREATEST(0, (SELECT last_position FROM pipeline_lock WHERE id = 1)
                        - COALESCE((SELECT min(position) FROM projection_checkpoint WHERE name IN ('flights', 'outbox')), 0))::int AS unprojected`,
  );
  return rows[0]!;
}

/** One line: what is left, or — when it cannot be read within `boundMs` — that it could not be. */
export async function logLeftAtStop(q: Queryable, log: Logger, stop: { readonly finished: boolean; readonly ms: number; readonly timeoutMs: number }, boundMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${boundMs} ms`)), boundMs)));
  try {
    const left = await Promise.race([leftAtStop(q), bound]);
    const what = { ...left, stopMs: Math.round(stop.ms) };
    if (stop.finished) log.info(what, 'left to the next start (recorded in PostgreSQL, re-driven at start)');
    else log.warn({ ...what, timeoutMs: stop.timeoutMs }, 'stop took longer than MSGX_STOP_TIMEOUT_MS: exiting now; left to the next start (recorded in PostgreSQL, re-driven at start)');
  } catch (err) {
    log.warn({ err, finished: stop.finished }, 'what is left to the next start could not be read; it is recorded in PostgreSQL and re-driven at start');
  } finally {
    clearTimeout(timer);
  }
}
