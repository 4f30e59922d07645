import { afterEach } from 'vitest';
import type { Clock } from '../../../src/platform/clock.ts';
import { systemClock } from '../../../src/platform/clock.ts';
import { loadConfig } from '../../../src/platform/config.ts';
import { noFaults } from '../../../src/platform/faults.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { createMysqlMailbox } from '../../../src/platform/mailbox/mysqlMailbox.ts';
import type { Mailbox } from '../../../src/platform/mailbox/port.ts';
import type { Runtime } from '../../../src/platform/runtime.ts';
import type { Service } from '../../../src/platform/service.ts';
import { createWriterServices } from '../../../src/cli/writerServices.ts';
import type { Foreground } from '../../../src/platform/slicing.ts';
import type { Backfill } from '../../../src/write/backfill/backfillService.ts';
import type { Ingest } from '../../../src/write/ingest/ingestService.ts';
import type { Pump } from '../../../src/write/pump/pumpService.ts';
import type { WriteModel } from '../../../src/write/pump/writeModel.ts';
import type { TestDatabase, TestMailbox } from '../../support/databases.ts';
import { fileDatabases, type FileDatabases } from '../../support/fileDatabases.ts';

/** A Runtime over a test PostgreSQL database and a test MariaDB mailbox (no embedded server). */
export function testRuntime(
  db: TestDatabase,
  my: TestMailbox,
  opts: { clock?: Clock; env?: Record<string, string>; mailbox?: Mailbox } = {},
): Runtime {
  const cfg = loadConfig({
    MSGX_DATABASE_URL: db.url,
    MSGX_MAILBOX_MYSQL_URL: my.url,
    MSGX_BACKOFF_MS: '10',
    MSGX_POLL_INTERVAL_MS: '50',
    ...opts.env,
  });
  const mailbox = opts.mailbox ?? createMysqlMailbox(my.url, cfg.airportTz);
  return {
    cfg,
    log: silentLogger,
    clock: opts.clock ?? systemClock,
    pool: db.pool,
    readPool: db.pool,
    mailbox,
    databaseUrl: db.url,
    faults: noFaults,
    async close() {
      await mailbox.close().catch(() => undefined);
    },
  };
}

export interface Writer {
  readonly ingest: Ingest;
  readonly pump: Pump;
  readonly backfill: Backfill;
  readonly model: WriteModel;
  stop(): Promise<void>;
}

/**
 * Ingest + pump + backfill as `msgx start` wires them (createWriterServices, the same function
 * assemble.ts uses; no writer lock, no jobs, projectors or delivery), started.
 */
export async function startWriter(rt: Runtime, parts: { ingest?: boolean; backfill?: boolean; foreground?: Foreground } = {}): Promise<Writer> {
  const { ingest, pump, backfill, model } = createWriterServices(rt, { parts: 'core', ...(parts.foreground ? { foreground: parts.foreground } : {}) });
  const started: Service[] = [];
  if (parts.ingest !== false) started.push(ingest);
  started.push(pump);
  if (parts.backfill !== false) started.push(backfill);
  for (const s of started) await s.start();
  return {
    ingest,
    pump,
    backfill,
    model,
    async stop() {
      for (const s of started.reverse()) await s.stop();
    },
  };
}

type RuntimeOptions = Parameters<typeof testRuntime>[2];

const fail = (message: string): never => {
  throw new Error(message);
};

/**
 * A write-side test file's stage (call at module level): its PostgreSQL database and MariaDB
 * mailbox; after each test the writer and runtime it started are stopped, `afterEachTest` runs and
 * the stores are reset.
 */
export interface WriteStage extends FileDatabases {
  /** The runtime of this test (the last one made). */
  readonly rt: Runtime;
  /** The writer of this test (the last one started). */
  readonly w: Writer;
  /** A runtime over the stage's databases, closed after the test. */
  runtime(opts?: RuntimeOptions): Runtime;
  /** The writer's services on the test's runtime (stopped after the test). */
  startWriter(parts?: Parameters<typeof startWriter>[1]): Promise<Writer>;
  /** A runtime and its writer. */
  start(opts?: RuntimeOptions, parts?: Parameters<typeof startWriter>[1]): Promise<Writer>;
}

export function writeStage(label: string, { afterEachTest }: { afterEachTest?: (db: TestDatabase) => Promise<unknown> } = {}): WriteStage {
  const dbs = fileDatabases(label);
  let rt: Runtime | undefined;
  let w: Writer | undefined;
  afterEach(async () => {
    await w?.stop();
    await rt?.close();
    w = undefined;
    rt = undefined;
    await afterEachTest?.(dbs.db);
    await resetStores(dbs.db, dbs.my);
  });
  const stage: WriteStage = {
    get db() { return dbs.db; },
    get my() { return dbs.my; },
    get rt() { return rt ?? fail('no runtime in this test yet'); },
    get w() { return w ?? fail('no writer in this test yet'); },
    runtime(opts) {
      rt = testRuntime(dbs.db, dbs.my, opts);
      return rt;
    },
    async startWriter(parts) {
      w = await startWriter(stage.rt, parts);
      return w;
    },
    start(opts, parts) {
      stage.runtime(opts);
      return stage.startWriter(parts);
    },
  };
  return stage;
}

export async function insertCminmsgs(my: TestMailbox, xml: string): Promise<string> {
  const [res] = await my.pool.execute('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, NOW())', [xml]);
  return String((res as { insertId: number | string }).insertId);
}

/** Insert many rows with multi-row INSERTs (consecutive ids, in order); returns nothing. */
export async function insertCminmsgsBulk(my: TestMailbox, xmls: readonly string[], chunk = 100): Promise<void> {
  for (let i = 0; i < xmls.length; i += chunk) {
    const part = xmls.slice(i, i + chunk);
    await my.pool.query('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES ' + part.map(() => '(?, NOW())').join(', '), part);
  }
}

/** Empty the write-side tables and CMINMSGS between tests of one file (the log's guard, a trigger on the log and on each of its partitions, is lifted for it: replica mode fires no ordinary trigger). */
export async function resetStores(db: TestDatabase, my: TestMailbox): Promise<void> {
  await db.pool.query(`TRUNCATE proc_state, proc_state_hst, inbox_message, inbox_gap, inbox_cursor;
    SET session_replication_role = replica; TRUNCATE decision_event; RESET session_replication_role;
    UPDATE pipeline_lock SET last_position = 0`);
  await my.pool.query('TRUNCATE TABLE CMINMSGS');
}

export interface ProcRow {
  msg_id: string;
  state: string;
  error_class: string | null;
  last_error: string | null;
  attempts: number;
  identity_key: string | null;
  backfill_state: string | null;
  backfill_status: string | null;
}

export async function procStates(db: TestDatabase): Promise<ProcRow[]> {
  const { rows } = await db.pool.query<ProcRow>(
    `SELECT msg_id, state, error_class, last_error, attempts, identity_key, backfill_state, backfill_status
       FROM proc_state ORDER BY msg_id`,
  );
  return rows;
}

export interface DecisionRow {
  position: string;
  msg_id: string | null;
  kind: string;
  payload: Record<string, unknown>;
}

export async function decisions(db: TestDatabase): Promise<DecisionRow[]> {
  const { rows } = await db.pool.query<DecisionRow>('SELECT position, msg_id, kind, payload FROM decision_event ORDER BY position');
  return rows;
}

/** Unfinished = PENDING or FAILED. */
export async function unfinished(db: TestDatabase): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>("SELECT count(*) AS n FROM proc_state WHERE state IN ('PENDING', 'FAILED')");
  return Number(rows[0]!.n);
}

export const TERMINAL = new Set(['Applied', 'Skipped', 'Dead', 'Parked']);

/** Message ids with their number of terminal decisions since their last ReplayRequested. */
export function terminalCounts(rows: readonly DecisionRow[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    if (r.msg_id === null) continue;
    if (r.kind === 'ReplayRequested') out.set(r.msg_id, 0);
    else if (TERMINAL.has(r.kind)) out.set(r.msg_id, (out.get(r.msg_id) ?? 0) + 1);
    else if (!out.has(r.msg_id)) out.set(r.msg_id, 0);
  }
  return out;
}
