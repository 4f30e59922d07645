/**
 * Shared pieces of the outage suite (test/reliability/outage*.int.test.ts): the assembled app
 * in-process with the production logger writing into memory, the outage clock (`holdOutage`),
 * operational traffic that ends in terminal decisions at the first attempt, and the probes
 * the tests assert on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assemble, type App, type Role } from '../../../src/cli/assemble.ts';
import { loadConfig } from '../../../src/platform/config.ts';
import { openRuntime, type Runtime } from '../../../src/platform/runtime.ts';
import { afterAll, beforeAll } from 'vitest';
import { httpGql, type Gql } from '../../e2e/support/scenarioRunner.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../../support/databases.ts';
import { waitFor } from '../../support/waitFor.ts';
import { acft, dnld, estt, MALFORMED_XML, stnd } from '../../write/support/messages.ts';
import { captureLog, type CapturedLog } from './captureLog.ts';

/** `MSGX_SOAK=1` (npm run test:soak): outages of 60 s as docs/recovery.md asks; otherwise a short form. */
export const SOAK = process.env.MSGX_SOAK === '1';
export const outageMs = (shortMs: number): number => (SOAK ? 60_000 : shortMs);
/** How long each suite's dependency stays down: ~5 s, 60 s with MSGX_SOAK=1. */
export const OUTAGE_MS = outageMs(5000);
/** How soon after a dependency is back msgx must be working again (docs/recovery.md). */
export const RESUME_WITHIN_MS = 5000;
/**
 * How long draining a backlog, or starting or stopping a process, may take. That is throughput on a shared, loaded CI machine (it
 * took over 30 s at load 30 on 2 cores), not a promise of msgx's: the timing these tests hold
 * msgx to is RESUME_WITHIN_MS. Bounded, so that a pipeline that stopped still fails.
 */
export const DRAIN_WITHIN_MS = 150_000;

/**
 * The outage itself: the one real wait of these tests. The dependency stays down for `ms` of
 * wall time, because how msgx behaves over time while it is down is what is being tested.
 */
export function holdOutage(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Settings of the outage runs: a short ingest poll (the tests feed in bursts), but the
 * production backoff table (MSGX_BACKOFF_MS / _CAP_MS unset), because "resumes within 5 s" must
 * hold with the defaults an operator runs.
 */
export const OUTAGE_ENV: Readonly<Record<string, string>> = {
  MSGX_HTTP_HOST: '127.0.0.1',
  MSGX_HTTP_PORT: '0',
  MSGX_POLL_INTERVAL_MS: '50',
  MSGX_SCHD_FLUSH_MS: '200',
  MSGX_HISTORY_KEEP_DAYS: '36500', // the traffic is dated March 2025: keep it out of the history sweep
  // The runs check COUTMSGS row for row: no reference requests (RQRD) at start beside them.
  MSGX_REQUEST_REFERENCE_AT_START: 'false',
};

export interface OutageDatabases {
  readonly db: TestDatabase;
  readonly my: TestMailbox;
}

/**
 * The databases of one outage suite, named after it: a test PostgreSQL database and a MariaDB
 * mailbox, made before the suite's own beforeAll hooks (which may proxy them) and dropped after
 * its own afterAll hooks have stopped its app and closed what it cut (vitest runs afterAll hooks
 * in reverse order of registration, `sequence.hooks: 'stack'`, its default). Call it first.
 */
export function outageDatabases(label: string): OutageDatabases {
  const dbs: { db?: TestDatabase; my?: TestMailbox } = {};
  beforeAll(async () => {
    [dbs.db, dbs.my] = await Promise.all([createTestDatabase(label), createTestMailbox(label)]);
  });
  afterAll(async () => {
    await Promise.all([dbs.db?.drop(), dbs.my?.drop()]);
  });
  return {
    get db() {
      if (!dbs.db) throw new Error(`${label}: the test database is made in beforeAll`);
      return dbs.db;
    },
    get my() {
      if (!dbs.my) throw new Error(`${label}: the test mailbox is made in beforeAll`);
      return dbs.my;
    },
  };
}

export interface RunningApp {
  readonly rt: Runtime;
  readonly app: App;
  readonly base: string;
  readonly gql: Gql;
  readonly log: CapturedLog;
  readyz(): Promise<Readiness>;
  stop(): Promise<void>;
}

export interface Readiness {
  readonly status: number;
  readonly checks: readonly { name: string; ok: boolean; error?: string }[];
}

/**
 * openRuntime + assemble + start, as `msgx start` does, logging into memory. Role `all` by
 * default; never a writer role for a test that cuts PostgreSQL (a writer that loses its lock
 * session sends SIGTERM to its own process — the test runner).
 */
export async function startApp(env: Readonly<Record<string, string>>, role: Role = 'all'): Promise<RunningApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-outage-'));
  const log = captureLog('info');
  const cfg = loadConfig({ ...OUTAGE_ENV, MSGX_DATA_DIR: dataDir, ...env });
  const rt = await openRuntime(cfg, log.log, { migrate: role !== 'api' });
  const app = await assemble(rt, { role, standby: false });
  try {
    await app.start();
  } catch (err) {
    await app.stop().catch(() => undefined);
    await rt.close();
    throw err;
  }
  const base = `http://127.0.0.1:${app.httpPort()}`;
  return {
    rt,
    app,
    base,
    gql: httpGql(`${base}/graphql`),
    log,
    async readyz() {
      const res = await fetch(`${base}/readyz`);
      const body = (await res.json()) as { checks: Readiness['checks'] };
      return { status: res.status, checks: body.checks };
    },
    async stop() {
      await app.stop();
      await rt.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until /readyz answers 503, and returns what it says. */
export function notReady(app: RunningApp): Promise<Readiness> {
  return waitFor(async () => {
    const r = await app.readyz();
    return r.status === 503 ? r : null;
  }, { what: '/readyz 503' });
}

/** One readiness check by name (fails the test if /readyz does not list it). */
export function check(r: Readiness, name: string): { ok: boolean; error?: string } {
  const c = r.checks.find((x) => x.name === name);
  if (!c) throw new Error(`/readyz has no check '${name}': ${JSON.stringify(r.checks)}`);
  return c;
}

export interface LogLine {
  readonly level: number;
  readonly time: number;
  readonly component: string;
  readonly msg: string;
  /** A per-message verdict an operator must act on (DEAD/PARKED): traffic, not outage noise. */
  readonly operatorWork: boolean;
}

/** The captured NDJSON lines. */
export function logLines(log: CapturedLog): LogLine[] {
  return parseLogLines(log.text());
}

/** pino NDJSON → lines; `component` = role plus scope / target / projector when present. */
export function parseLogLines(ndjson: string): LogLine[] {
  return ndjson
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      const o = JSON.parse(l) as { level: number; time: string; msg?: string; role?: string; scope?: string; target?: string; projector?: string; state?: string };
      const component = [o.role ?? 'root', o.scope ?? o.target ?? o.projector].filter(Boolean).join('/');
      return { level: o.level, time: Date.parse(o.time), component, msg: o.msg ?? '', operatorWork: o.state === 'DEAD' || o.state === 'PARKED' };
    });
}

/** Warnings and errors (pino level ≥ 40) logged in [from, to], counted per component. */
/** A warning or error in [from, to] that is not a message's own DEAD/PARKED verdict (one warn line each, by design). */
function isOutageProblem(l: LogLine, from: number, to: number): boolean {
  return l.level >= 40 && l.time >= from && l.time <= to && !l.operatorWork;
}

export function problemsPerComponent(lines: readonly LogLine[], from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) {
    if (isOutageProblem(l, from, to)) out[l.component] = (out[l.component] ?? 0) + 1;
  }
  return out;
}

export function describeProblems(lines: readonly LogLine[], from: number, to: number): string {
  return lines
    .filter((l) => isOutageProblem(l, from, to))
    .map((l) => `${l.time - from} ms ${l.component}: ${l.msg}`)
    .join('\n');
}

/** Flights of the traffic's DNLD plan. */
export const FLIDS: readonly string[] = Array.from({ length: 30 }, (_, i) => String(870_000 + i));

/**
 * `count` operational messages starting at SEQN `seqn` (FLOP ESTT / ACFT / STND on FLIDS, the
 * previous message resent every 40th, a malformed message every 97th, an unknown flight every 131st):
 * every one ends in a terminal decision at its first attempt, so the run's timing is the outage's.
 * Send `plan()` first.
 */
export function operations(seqn: number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const s = seqn + i;
    const flid = FLIDS[s % FLIDS.length]!;
    const minute = String(s % 60).padStart(2, '0');
    if (s % 97 === 0) out.push(MALFORMED_XML);
    else if (s % 40 === 0 && out.length > 0) out.push(out[out.length - 1]!); // an upstream resend: same identity
    else if (s % 131 === 0) out.push(stnd(s, '879999', 'X1')); // no such flight
    else if (s % 3 === 0) out.push(estt(s, flid, `14MAR2510${minute}`));
    else if (s % 3 === 1) out.push(acft(s, flid, ['320', '321', '738', '333'][s % 4]!));
    else out.push(stnd(s, flid, String(200 + (s % 30))));
  }
  return out;
}

export const plan = (): string => dnld(100, FLIDS);

export interface Counts {
  /** Rows copied into inbox_message. */
  readonly copied: number;
  /** PENDING or FAILED. */
  readonly unfinished: number;
  readonly decisions: number;
  /** Terminal messages whose CMINMSGS write-back is still pending. */
  readonly backfillPending: number;
  /** … of which at least one write-back attempt failed. */
  readonly backfillRetried: number;
}

export async function counts(db: TestDatabase): Promise<Counts> {
  const { rows } = await db.pool.query<{ copied: string; unfinished: string; decisions: string; bp: string; br: string }>(
    `SELECT (SELECT count(*) FROM inbox_message) AS copied,
            (SELECT count(*) FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS unfinished,
            (SELECT count(*) FROM decision_event) AS decisions,
            (SELECT count(*) FROM proc_state WHERE backfill_state = 'PENDING') AS bp,
            (SELECT count(*) FROM proc_state WHERE backfill_state = 'PENDING' AND backfill_attempts > 0) AS br`,
  );
  const r = rows[0]!;
  return { copied: Number(r.copied), unfinished: Number(r.unfinished), decisions: Number(r.decisions), backfillPending: Number(r.bp), backfillRetried: Number(r.br) };
}

/** Positions 1..n with no hole (the log's own invariant; a lost or doubled append would break it). */
export async function logIsGapFree(db: TestDatabase): Promise<boolean> {
  const { rows } = await db.pool.query<{ n: string; max: string | null; distinct: string }>(
    'SELECT count(*) AS n, max(position) AS max, count(DISTINCT position) AS distinct FROM decision_event',
  );
  const r = rows[0]!;
  return r.n === r.distinct && (r.max ?? '0') === r.n;
}
