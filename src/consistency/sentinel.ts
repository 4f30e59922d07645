/**
 * The consistency sentinel of the writer: a sample check on start (MSGX_CONSISTENCY_CHECK_ON_START)
 * and one every day at MSGX_CONSISTENCY_CHECK_AT airport time, each on
 * MSGX_CONSISTENCY_SAMPLE_RATIO of the flights in the read model. Each result is recorded in
 * consistency_check (→ pipeline.consistency, msgx_consistency_* metrics) and every mismatch is one
 * ERROR line. Nothing is repaired: the runbook (docs/operations.md) says how.
 *
 * The check runs in its own read-only snapshot on one pooled connection; it never holds a lock the
 * pump or the projectors wait for. Start-up does not wait for it, and the start check waits for
 * `settled` (the writer: what waited at the start is decided, at most START_SETTLE_MAX_MS), so that it never
 * shares the CPU with the first decisions after a start or a takeover (docs/operations.md,
 * "Sentinel").
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Pool } from '../platform/db.ts';
import type { Logger } from '../platform/logger.ts';
import type { Service } from '../platform/service.ts';
import { untilSettled } from '../platform/untilSettled.ts';
import { aidxRules } from '../domain/aidxOut/aidxMessage.ts';
import type { CoutmsgsRoute } from '../projections/outboxRoutes.ts';
import { nextDailyRun } from './nextDailyRun.ts';
import { recordCheck, type CheckTrigger } from './recordCheck.ts';
import { describeMismatch, type CheckReport } from './report.ts';
import { runCheck, type SnapshotCheck } from './runCheck.ts';

/** ERROR lines per check at most; the rest are counted in one more line. */
const LOG_LIMIT = 1000;

export interface SentinelDeps {
  readonly pool: Pool;
  readonly clock: Clock;
  readonly log: Logger;
  readonly cfg: Pick<Config, 'airportTz' | 'consistency'> & Partial<Pick<Config, 'aidxOut' | 'airportIata' | 'aidxOriginator'>>;
  readonly routes?: readonly CoutmsgsRoute[];
  /** The write-model snapshot check (absent: not checked). */
  readonly snapshot?: SnapshotCheck;
  /** What the start check waits for first (at most START_SETTLE_MAX_MS); absent: it runs at once. */
  readonly settled?: () => Promise<void>;
}

export interface Sentinel extends Service {
  /** Run one sample check now, record and log it. */
  checkOnce(trigger: CheckTrigger): Promise<CheckReport>;
}

export function createSentinel(deps: SentinelDeps): Sentinel {
  const { pool, clock, cfg } = deps;
  const log = deps.log.child({ role: 'consistency' });
  const stop = new AbortController();
  let loop: Promise<void> | undefined;

  async function checkOnce(trigger: CheckTrigger): Promise<CheckReport> {
    const report = await runCheck(pool, {
      selection: { kind: 'sample', ratio: cfg.consistency.sampleRatio },
      clock,
      ...(deps.routes ? { routes: deps.routes } : {}),
      ...(aidxRules(cfg) ? { aidx: aidxRules(cfg) } : {}),
      ...(deps.snapshot ? { snapshot: deps.snapshot } : {}),
    });
    await recordCheck(pool, trigger, report);
    report.mismatches.slice(0, LOG_LIMIT).forEach((m) => log.error({ mismatch: m, trigger }, `consistency: ${describeMismatch(m)}`));
    if (report.mismatches.length > LOG_LIMIT) {
      log.error({ trigger, more: report.mismatches.length - LOG_LIMIT }, 'consistency: more mismatches not logged; run msgx verify');
    }
    const summary = { trigger, flights: report.checked.flights, decisions: report.checked.decisions, messages: report.checked.messages, mismatches: report.mismatches.length, seconds: report.seconds };
    if (report.mismatches.length > 0) log.error(summary, 'consistency check found mismatches (nothing repaired; see docs/operations.md)');
    else log.info(summary, 'consistency check: read models, outbox and write-backs agree with the log');
    return report;
  }

  async function guarded(trigger: CheckTrigger): Promise<void> {
    try {
      await checkOnce(trigger);
    } catch (err) {
      if (!stop.signal.aborted) log.warn({ err, trigger }, 'consistency check could not run; next at its next time');
    }
  }

  async function run(): Promise<void> {
    if (cfg.consistency.checkOnStart) {
      if (deps.settled) await untilSettled(deps.settled, clock, stop.signal);
      if (stop.signal.aborted) return;
      await guarded('start');
    }
    while (!stop.signal.aborted) {
      const now = clock.now();
      const next = nextDailyRun(now, cfg.consistency.checkAt, cfg.airportTz);
      await clock.sleep(next.getTime() - now.getTime(), stop.signal);
      if (stop.signal.aborted) return;
      await guarded('daily');
    }
  }

  return {
    name: 'consistency',
    async start() {
      loop = run();
    },
    async stop() {
      stop.abort();
      await loop;
    },
    checkOnce,
  };
}
