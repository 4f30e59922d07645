/**
 * One crash-matrix run: the same generated traffic through an uninterrupted in-process reference
 * (ingest + pump + backfill) and through `msgx start` child processes that are killed at every
 * named crash point and at random moments, against real PostgreSQL, real MariaDB (CMINMSGS) and
 * the in-process Kafka test broker; then the checks of crashChecks.ts. Returns the problems found
 * (the test asserts they are empty) with the kills made and the timings.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FlightState } from '../../../src/domain/flight.ts';
import { systemClock } from '../../../src/platform/clock.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { foldLog } from '../../../src/log/foldLog.ts';
import { rebuildFlights } from '../../../src/projections/rebuild/rebuildFlights.ts';
import { checkSnapshot } from '../../../src/write/snapshot/checkSnapshot.ts';
import { describeMismatch } from '../../../src/consistency/report.ts';
import { startKafkaBroker } from '../../support/kafka/broker.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../../support/databases.ts';
import { waitFor } from '../../support/waitFor.ts';
import { decisions, insertCminmsgsBulk, procStates, startWriter, testRuntime, type DecisionRow } from '../../write/support/writeHarness.ts';
import {
  backfillProblems, checkMsgTopic, decisionDifferences, digest, flightDifferences, flightSnapshot, logProblems, schdProblems, snapshotDifferences,
} from './crashChecks.ts';
import { CrashFeeder } from './crashFeeder.ts';
import { runChain, type KillRecord } from './crashPhases.ts';
import { planKills, type PlanOptions } from './crashPlan.ts';
import { readProgress } from './crashProgress.ts';
import { CRASH_AIRPORT, crashTraffic } from './crashTraffic.ts';

/**
 * The same settings for the reference and every child: fast retries, frequent schd flushes. The
 * history-keep window is left at its default (30 days): the traffic is dated 2025 and the sweep must
 * follow traffic time, not the machine's clock (docs/operations.md); crashTraffic moves the latest
 * operation day past the window once, so a sweep is decided in the middle of the kills.
 */
/** The airport zone of every run: Kafka payloads show their instants in it (checked against the log). */
export const CRASH_TZ = 'Asia/Shanghai';

export const CRASH_ENV: Readonly<Record<string, string>> = Object.freeze({
  MSGX_AIRPORT_TZ: CRASH_TZ,
  // AIDX legs of the traffic are ours when they touch the plan's station (docs/contract/aidx.md).
  MSGX_AIRPORT_IATA: CRASH_AIRPORT,
  MSGX_BACKOFF_MS: '10',
  MSGX_MAX_ATTEMPTS: '3',
  MSGX_POLL_INTERVAL_MS: '50',
  MSGX_INGEST_BATCH: '100',
  MSGX_SCHD_FLUSH_MS: '100',
  // COUTMSGS is compared with an uninterrupted run: no reference requests (RQRD) at start beside it.
  MSGX_REQUEST_REFERENCE_AT_START: 'false',
  // Snapshots often, so that kills land while one is written and restarts start from one.
  MSGX_SNAPSHOT_EVERY: '50',
});

export interface CrashRunResult {
  readonly seed: number;
  readonly trafficSeed: number;
  readonly messages: number;
  readonly kills: readonly KillRecord[];
  readonly problems: {
    readonly decisions: string[];
    /** The flights folded from the crash run's log against the reference's. */
    readonly flights: string[];
    readonly log: string[];
    readonly msgTopic: string[];
    readonly schd: string[];
    readonly readModels: string[];
    readonly backfill: string[];
    /** Each stored write-model snapshot against a fold of the log up to its position. */
    readonly snapshots: string[];
    readonly process: string[];
  };
  /** Write-model snapshots stored at the end of the crash run. */
  readonly snapshotsStored: number;
  /** What the reference decided, to show the mix had every outcome. */
  readonly outcomes: { readonly kinds: string[]; readonly reasons: string[]; readonly deadClasses: string[]; readonly handlers: string[] };
  /** The crash run's history-sweep decisions (payloads). */
  readonly sweeps: readonly Record<string, unknown>[];
  readonly kafka: { readonly changes: number; readonly records: number; readonly duplicates: number };
  readonly timings: { readonly referenceMs: number; readonly crashMs: number; readonly checksMs: number; readonly totalMs: number };
}

interface Stores {
  readonly db: TestDatabase;
  readonly my: TestMailbox;
}

async function referenceRun(ref: Stores, messages: readonly string[]): Promise<{ log: DecisionRow[]; ms: number }> {
  const t0 = Date.now();
  await insertCminmsgsBulk(ref.my, messages);
  const rt = testRuntime(ref.db, ref.my, { env: { ...CRASH_ENV } });
  const writer = await startWriter(rt);
  try {
    await waitFor(
      async () => {
        const p = await readProgress(ref.db.pool);
        return p.ingested === messages.length && p.unfinished === 0;
      },
      { timeoutMs: 120_000, intervalMs: 50, what: 'the reference run' },
    );
  } finally {
    await writer.stop();
    await rt.close();
  }
  return { log: await decisions(ref.db), ms: Date.now() - t0 };
}

function outcomesOf(log: readonly DecisionRow[], handlers: string[]): CrashRunResult['outcomes'] {
  const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
  return {
    kinds: sorted(log.map((d) => d.kind)),
    reasons: sorted(log.filter((d) => d.kind === 'Skipped').map((d) => String(d.payload.reason).replace(/:.*$/, ''))),
    deadClasses: sorted(log.filter((d) => d.kind === 'Dead').map((d) => String(d.payload.errorClass))),
    handlers: sorted(handlers),
  };
}

export async function runCrashMatrix(seed: number, plan: PlanOptions): Promise<CrashRunResult> {
  const t0 = Date.now();
  // Spread apart, so that consecutive run seeds never search their way to the same day.
  const traffic = crashTraffic(seed * 1000);
  const messages = traffic.messages;
  const [refDb, refMy, db, my] = await Promise.all([
    createTestDatabase('crashmref'), createTestMailbox('crashmref'), createTestDatabase('crashm'), createTestMailbox('crashm'),
  ]);
  const broker = await startKafkaBroker({ topics: { msg: 3, schd: 1 } });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-crashm-'));
  // The reference runs in this process while the children run beside it.
  const reference = referenceRun({ db: refDb, my: refMy }, messages);
  reference.catch(() => undefined);
  try {
    const env = {
      ...CRASH_ENV,
      MSGX_DATABASE_URL: db.url,
      MSGX_MAILBOX_MYSQL_URL: my.url,
      MSGX_KAFKA_BROKERS: broker.brokers.join(','),
      MSGX_HTTP_PORT: '0',
      MSGX_HTTP_HOST: '127.0.0.1',
      MSGX_DATA_DIR: dataDir,
      MSGX_LOG_LEVEL: 'warn',
    };
    const feeder = new CrashFeeder(my, messages, { chunk: 50, idleChunk: 10, backlog: 150 });
    const chain = await runChain({ db, env, feeder }, planKills(seed, plan));
    const crashMs = Date.now() - t0;

    const ref = await reference;
    const t1 = Date.now();
    const log = await decisions(db);
    const procs = await procStates(db);
    const flights = new Map<string, FlightState>();
    await foldLog(db.pool, flights, '0', log.at(-1)?.position ?? '0');
    const refFlights = new Map<string, FlightState>();
    await foldLog(refDb.pool, refFlights, '0', ref.log.at(-1)?.position ?? '0');
    const msg = checkMsgTopic(log, broker.records('msg'), CRASH_TZ);
    const live = await flightSnapshot(db.pool);
    const rebuilt = await rebuildFlights({ pool: db.pool, clock: systemClock, log: silentLogger });
    const { rows: handlerRows } = await db.pool.query<{ handler: string }>('SELECT DISTINCT handler FROM decision_event WHERE handler IS NOT NULL');
    return {
      seed,
      trafficSeed: traffic.seed,
      messages: messages.length,
      kills: chain.kills,
      problems: {
        decisions: decisionDifferences(digest(ref.log), digest(log)).slice(0, 10),
        flights: flightDifferences(refFlights, flights),
        log: logProblems(log, procs, messages.length),
        msgTopic: msg.problems,
        schd: schdProblems(flights, broker.records('schd'), CRASH_TZ),
        readModels: rebuilt.ok ? snapshotDifferences(live, await flightSnapshot(db.pool)) : [`rebuild: ${JSON.stringify(rebuilt)}`],
        backfill: await backfillProblems(my, procs),
        snapshots: await snapshotProblems(db),
        process: [
          ...(chain.stopCode === 0 ? [] : [`the last msgx stopped with code ${chain.stopCode}:\n${chain.output}`]),
          ...broker.internalErrors.map((e) => `kafka test broker: ${e.message}`),
        ],
      },
      outcomes: outcomesOf(ref.log, handlerRows.map((r) => r.handler)),
      snapshotsStored: Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM write_model_snapshot')).rows[0]!.n),
      sweeps: log.filter((d) => d.kind === 'FlightsArchived').map((d) => d.payload),
      kafka: { changes: msg.changes, records: msg.records, duplicates: msg.duplicates },
      timings: { referenceMs: ref.ms, crashMs, checksMs: Date.now() - t1, totalMs: Date.now() - t0 },
    };
  } finally {
    await Promise.allSettled([reference]);
    await broker.close();
    await Promise.allSettled([refDb.drop(), refMy.drop(), db.drop(), my.drop()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Every stored snapshot (not only the newest) against a fold of the log up to its position. */
async function snapshotProblems(db: TestDatabase): Promise<string[]> {
  const { rows } = await db.pool.query<{ position: string }>('SELECT position FROM write_model_snapshot ORDER BY position');
  const out: string[] = [];
  for (const { position } of rows) {
    const r = await checkSnapshot(db.pool, position, { whole: true, ratio: 1 });
    if (r.position !== position) out.push(`snapshot at ${position}: not found as the newest at its position (${r.position})`);
    out.push(...r.mismatches.map(describeMismatch));
  }
  return out;
}

/** One line per run for the test output. */
export function summarize(r: CrashRunResult): string {
  const t = r.timings;
  const kills = r.kills.map((k) => `${k.kill}${k.how === 'hook' ? '' : ` (${k.how})`} @${k.decisions} ${k.phaseMs} ms`).join(', ');
  return (
    `crash matrix seed ${r.seed} (traffic ${r.trafficSeed}): ${r.messages} messages, ${r.kills.length} kills [${kills}]; ` +
    `msg: ${r.kafka.changes} changes, ${r.kafka.records} records (${r.kafka.duplicates} re-sent); ` +
    `reference ${t.referenceMs} ms, crash run ${t.crashMs} ms, checks ${t.checksMs} ms, total ${t.totalMs} ms`
  );
}
