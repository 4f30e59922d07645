/**
 * What a stopping writer leaves to the next start (docs/operations.md "Stopping"), read from
 * PostgreSQL — where all of it is recorded, so the next start re-drives it and nothing is lost:
 * undecided messages (proc_state), CMINMSGS write-backs (proc_state.backfill_state PENDING),
 * deliveries (msg_event PENDING), and decisions the projectors have not applied yet (checkpoints).
 */
import type { Queryable } from '../platform/db.ts';
import type { Logger } from '../platform/logger.ts';
import { pipelineStatus, type StatusDay } from '../readModel/pipelineStatus.ts';

export interface LeftAtStop {
  readonly undecided: number;
  readonly writeBacks: number;
  readonly deliveries: number;
  readonly unprojected: number;
}

/** The projectors whose lag counts as `unprojected`: the flight read model and the outbox feeder. */
const REDRIVEN = ['flights', 'outbox'];

/** Read from the pipeline status (src/readModel/pipelineStatus.ts). */
export async function leftAtStop(q: Queryable, day: StatusDay): Promise<LeftAtStop> {
  const s = await pipelineStatus(q, day);
  const positions = s.projections.filter((p) => REDRIVEN.includes(p.name)).map((p) => Number(p.position));
  const lowest = positions.length > 0 ? Math.min(...positions) : 0;
  return {
    undecided: s.backlog,
    writeBacks: s.backfillPending,
    deliveries: s.outbox.reduce((n, o) => n + o.pending, 0),
    unprojected: Math.max(0, Number(s.lastPosition) - lowest),
  };
}

/** One line: what is left, or — when it cannot be read within `boundMs` — that it could not be. */
export async function logLeftAtStop(q: Queryable, day: StatusDay, log: Logger, stop: { readonly finished: boolean; readonly ms: number; readonly timeoutMs: number }, boundMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${boundMs} ms`)), boundMs)));
  try {
    const left = await Promise.race([leftAtStop(q, day), bound]);
    const what = { ...left, stopMs: Math.round(stop.ms) };
    if (stop.finished) log.info(what, 'left to the next start (recorded in PostgreSQL, re-driven at start)');
    else log.warn({ ...what, timeoutMs: stop.timeoutMs }, 'stop took longer than MSGX_STOP_TIMEOUT_MS: exiting now; left to the next start (recorded in PostgreSQL, re-driven at start)');
  } catch (err) {
    log.warn({ err, finished: stop.finished }, 'what is left to the next start could not be read; it is recorded in PostgreSQL and re-driven at start');
  } finally {
    clearTimeout(timer);
  }
}
