import type { Runtime } from '../../platform/runtime.ts';
import type { Service } from '../../platform/service.ts';
import { createServiceLoop } from '../../platform/serviceLoop.ts';
import { untilSettled } from '../../platform/untilSettled.ts';
import { ensureMonthsAhead } from '../../log/historyMonths.ts';
import { queryUnlessAborted } from '../../platform/db.ts';
import { archiveProcState } from './archiveProcState.ts';

/** How often the housekeeping job runs (first run at start). */
export const JOBS_PERIOD_MS = 3_600_000;
const DAY_MS = 86_400_000;
/**
 * Rows moved in one run after which proc_state is vacuumed at once (docs/operations.md "Jobs").
 * The hourly run moves a few thousand rows, which autovacuum cleans; a first run on an old log or
 * after a long stop moves up to millions, and until a vacuum removes them every new connection
 * plans the pump's head query over the dead index entries (measured on a 13-week log: 8–10 ms as
 * built, 76–103 ms after 1 M rows moved; docs/scaling.md "Measured over weeks").
 */
export const VACUUM_AFTER_ROWS = 100_000;

export interface JobsResult {
  readonly archived: number;
  /** proc_state was vacuumed after the run (it moved at least `vacuumAfter` rows). */
  readonly vacuumed: boolean;
  /** Monthly partitions created ahead (docs/operations.md "Archive a month"). */
  readonly monthsCreated: number;
}

export interface Jobs extends Service {
  /** One run; with `signal`, it stops between two batches of the archive once `signal` aborts. */
  runOnce(signal?: AbortSignal): Promise<JobsResult>;
}

export interface JobsOptions {
  /**
   * What the first run waits for (at most START_SETTLE_MAX_MS): the writer's "what waited at the
   * start is decided". Absent: it runs at once.
   */
  readonly settled?: () => Promise<void>;
  /** Rows moved in one run after which proc_state is vacuumed (default VACUUM_AFTER_ROWS). */
  readonly vacuumAfter?: number;
}

/**
 * Housekeeping of the writer on the wall clock: archive terminal proc_state rows older than
 * MSGX_ARCHIVE_AFTER_DAYS. That may run at start and every hour because it changes no flight and
 * no decision: an archived row keeps its identity (proc_state_hst) and its raw XML (inbox_message),
 * and rows still owed a write-back or open for replay stay live. It also keeps the history tables'
 * monthly partitions twelve months ahead, so that no month's rows land in a DEFAULT partition,
 * which `msgx archive` refuses (docs/operations.md "Archive a month").
 *
 * The history sweep is NOT here any more: it changes flights, so it is decided by the pump in FIFO
 * order on traffic time (src/domain/archive.ts), never by this clock — see docs/operations.md.
 *
 * Its cost follows what is due, which after a long stop (or a first start on an old log) can be
 * millions of rows: so the first run waits until what waited at the start is decided, as the
 * sentinel does, and a stop ends a run between two batches (docs/operations.md "Jobs").
 */
export function createJobs(rt: Runtime, opts: JobsOptions = {}): Jobs {
  const log = rt.log.child({ role: 'jobs' });
  const stopping = new AbortController();
  let first = true;

  async function runOnce(signal?: AbortSignal): Promise<JobsResult> {
    const now = rt.clock.now();
    // First the months (one catalog query when nothing is missing), then the archive, which can be long.
    const monthsCreated = await ensureMonthsAhead(rt.pool, now);
    let archived = 0;
    while (!signal?.aborted) {
      const n = await archiveProcState(rt.pool, new Date(now.getTime() - rt.cfg.archiveAfterDays * DAY_MS), now);
      archived += n;
      if (n === 0) break;
    }
    // Off the pump's path, and VACUUM blocks no reader or writer of the table; its cost follows
    // the table's pages, which the rows just moved still occupy. A stop cancels it (autovacuum
    // or the next large run does it then).
    const vacuumed =
      archived >= (opts.vacuumAfter ?? VACUUM_AFTER_ROWS) && (await queryUnlessAborted(rt.pool, 'VACUUM (ANALYZE) proc_state', signal));
    if (archived > 0 || monthsCreated > 0) log.info({ archived, monthsCreated, vacuumed }, 'housekeeping done');
    return { archived, monthsCreated, vacuumed };
  }

  // Failures are said once per streak (an outage of hours is one error, not one an hour).
  const loop = createServiceLoop({
    clock: rt.clock,
    log,
    failedMsg: 'housekeeping failed; next try in one period',
    resumedMsg: 'housekeeping resumed',
    async step() {
      if (first && opts.settled) await untilSettled(opts.settled, rt.clock, stopping.signal);
      first = false;
      if (!stopping.signal.aborted) await runOnce(stopping.signal);
      return JOBS_PERIOD_MS;
    },
    retryMs: () => JOBS_PERIOD_MS,
  });

  return {
    name: 'jobs',
    start: async () => loop.start(),
    stop: async () => {
      stopping.abort();
      await loop.stop();
    },
    runOnce,
  };
}
