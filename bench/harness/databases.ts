/**
 * Databases of one bench run on the machine's real PostgreSQL and MariaDB (the same servers and
 * defaults as the integration tests). Every database is named `msgx_bench_<pid>_<label>`, so a run
 * that was killed leaves names the test suite's cleanup (and the next bench run) recognizes by
 * their dead pid and drops.
 */
import type mysql from 'mysql2/promise';
import pg from 'pg';
import { createPool } from '../../src/platform/db.ts';
import { migrate } from '../../src/platform/migrate.ts';
import { isProcessAlive } from '../../src/platform/processAlive.ts';
import {
  createMailboxDatabase, createPgDatabase, dropMailboxDatabase, dropPgDatabase, dropStaleDatabases, mailboxPool, withAdminClient, withMysqlAdmin,
} from '../../test/support/databases.ts';

const PREFIX = `msgx_bench_${process.pid}_`;
/** `msgx_bench_<pid>_<label>` (label: lowercase letters and digits only). */
const STALE = /^msgx_bench_(\d+)_[a-z0-9]+$/;

export function benchDbName(label: string): string {
  const clean = label.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (clean === '') throw new Error(`bad database label '${label}'`);
  return PREFIX + clean;
}

const stale = (name: string): boolean => {
  const pid = Number(STALE.exec(name)?.[1]);
  return Number.isFinite(pid) && pid !== process.pid && !isProcessAlive(pid);
};

/** Drop bench databases (PostgreSQL and MariaDB) left behind by runs whose process is gone. */
export function dropStaleBenchDatabases(): Promise<string[]> {
  return dropStaleDatabases('msgx_bench_', stale);
}

export interface BenchPg {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

export interface BenchMysql {
  readonly name: string;
  readonly url: string;
  readonly pool: mysql.Pool;
  drop(): Promise<void>;
}

const live = new Set<{ drop(): Promise<void> }>();

/** Drop every database this run still holds (end of run, Ctrl-C). */
export async function dropAll(): Promise<void> {
  for (const db of [...live].reverse()) await db.drop().catch(() => undefined);
}

let template: Promise<string> | undefined;

/** A migrated template database for this run (built once; every bench database clones it). */
export function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = benchDbName('tpl');
    const url = await createPgDatabase(name);
    live.add({ drop: () => dropPgDatabase(name) });
    const pool = createPool(url, { max: 1, applicationName: 'msgx-bench' });
    try {
      await migrate(pool);
    } finally {
      await pool.end();
    }
    return name;
  })();
  return template;
}

/** Create `name` (dropping a leftover of that name) by `CREATE DATABASE … TEMPLATE template`. */
async function createPgFrom(template: string, name: string): Promise<BenchPg> {
  const url = await createPgDatabase(name, template);
  const db: BenchPg = {
    name,
    url,
    async drop() {
      live.delete(db);
      await dropPgDatabase(name);
    },
  };
  live.add(db);
  return db;
}

/** A fresh migrated PostgreSQL database `msgx_bench_<pid>_<label>`. */
export async function createBenchPg(label: string): Promise<BenchPg> {
  return createPgFrom(await migratedTemplate(), benchDbName(label));
}

/** A copy of `source` (which must have no open connections) as `msgx_bench_<pid>_<label>`. */
export function cloneBenchPg(source: BenchPg, label: string): Promise<BenchPg> {
  return createPgFrom(source.name, benchDbName(label));
}

/** A fresh MariaDB database `msgx_bench_<pid>_<label>` with the shared mailbox DDL (CMINMSGS, COUTMSGS). */
export async function createBenchMysql(label: string): Promise<BenchMysql> {
  const name = benchDbName(label);
  const url = await createMailboxDatabase(name);
  const pool = mailboxPool(url);
  const db: BenchMysql = {
    name,
    url,
    pool,
    async drop() {
      live.delete(db);
      await pool.end().catch(() => undefined);
      await dropMailboxDatabase(name);
    },
  };
  live.add(db);
  return db;
}

/** Server versions and the durability settings the figures depend on. */
export async function serverInfo(): Promise<Record<string, string>> {
  const pgInfo = await withAdminClient(async (c) => {
    const q = async (sql: string) => String((await c.query<{ v: string }>(sql)).rows[0]?.v ?? '');
    return {
      postgres: await q('SELECT version() AS v'),
      fsync: await q("SELECT current_setting('fsync') AS v"),
      synchronousCommit: await q("SELECT current_setting('synchronous_commit') AS v"),
      sharedBuffers: await q("SELECT current_setting('shared_buffers') AS v"),
    };
  });
  const mariadb = await withMysqlAdmin(async (c) => {
    const [rows] = await c.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
    return String(rows[0]?.v ?? '');
  });
  return { ...pgInfo, mariadb };
}

/** Run `body` on one connection to `url`, ended whatever happens. */
export async function withBenchClient<T>(url: string, applicationName: string, body: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url, application_name: applicationName });
  await c.connect();
  try {
    return await body(c);
  } finally {
    await c.end();
  }
}
