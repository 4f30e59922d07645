import type { Runtime } from '../../platform/runtime.ts';
import type { Service } from '../../platform/service.ts';
import type { WriteModel } from '../pump/writeModel.ts';
import { archiveProcState } from './archiveProcState.ts';
import { sweepHistory, type SweepResult } from './sweepHistory.ts';

/** How often the housekeeping jobs run (first run at start). */
export const JOBS_PERIOD_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface JobsResult {
  readonly archived: number;
  readonly sweep: SweepResult;
}

export interface Jobs extends Service {
  runOnce(): Promise<JobsResult>;
}

/**
 * Housekeeping of the writer: archive terminal proc_state rows older than MSGX_ARCHIVE_AFTER_DAYS,
 * and sweep flights older than MSGX_HISTORY_KEEP_DAYS out of the state by an appended decision.
 */
export function createJobs(rt: Runtime, opts: { model: WriteModel }): Jobs {
  const log = rt.log.child({ role: 'jobs' });
  const stop = new AbortController();
  let loop: Promise<void> | undefined;

  async function runOnce(): Promise<JobsResult> {
    const now = rt.clock.now();
    let archived = 0;
    for (;;) {
      const n = await archiveProcState(rt.pool, new Date(now.getTime() - rt.cfg.archiveAfterDays * DAY_MS), now);
      archived += n;
      if (n === 0) break;
    }
    const sweep = await sweepHistory(rt.pool, opts.model, { now, tz: rt.cfg.airportTz, keepDays: rt.cfg.historyKeepDays });
    if (archived > 0 || sweep.archived > 0) log.info({ archived, flightsArchived: sweep.archived, beforeDay: sweep.beforeDay }, 'housekeeping done');
    return { archived, sweep };
  }

  async function run(): Promise<void> {
    while (!stop.signal.aborted) {
      try {
        await runOnce();
      } catch (err) {
        log.error({ err }, 'housekeeping failed; next try in one period');
      }
      await rt.clock.sleep(JOBS_PERIOD_MS, stop.signal);
    }
  }

  return {
    name: 'jobs',
    async start() {
      loop = run();
    },
    async stop() {
      stop.abort();
      await loop;
    },
    runOnce,
  };
}
