/**
 * The one factory of test databases, on the machine's real PostgreSQL and MariaDB: every test
 * file (and the bench, through bench/harness/databases.ts) makes its databases here.
 * - `createTestDatabase`: PostgreSQL, cloned from the migrated template globalSetup built
 *   (`{ migrated: false }`: empty, for the migration runner's tests);
 * - `createTestMailbox`: MariaDB with the shared mailbox DDL (CMINMSGS, COUTMSGS).
 * Names are `msgx_<label>_<pid>_<random>`: globalSetup drops those of runs whose process is gone.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createPool } from '../../src/platform/db.ts';
import { isProcessAlive } from '../../src/platform/processAlive.ts';

/** Admin URL of the machine's real PostgreSQL (override with MSGX_TEST_PG_URL). */
export const TEST_PG_ADMIN_URL = process.env.MSGX_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The machine's real MariaDB (override with MSGX_TEST_MYSQL_URL). */
export const TEST_MYSQL_ADMIN_URL = process.env.MSGX_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const MYSQL_DDL_DIR = fileURLToPath(new URL('../../migrations/mysql/', import.meta.url));
const templateDb = () => process.env.MSGX_TEST_TEMPLATE_DB ?? 'msgx_template';

function withDatabase(adminUrl: string, database: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

/** URL of PostgreSQL database `database` on the test server. */
export const dbUrl = (database: string): string => withDatabase(TEST_PG_ADMIN_URL, database);

/** Run `fn` on one admin connection to the test PostgreSQL. */
export async function withAdminClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Run `fn` on one admin connection to the test MariaDB (multiple statements allowed: the DDL files). */
export async function withMysqlAdmin<T>(fn: (c: mysql.Connection) => Promise<T>): Promise<T> {
  const c = await mysql.createConnection({ uri: TEST_MYSQL_ADMIN_URL, multipleStatements: true });
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** `msgx_<label>_<pid>_<random>`: unique per call, and its pid tells a dead run's leftover. */
export function testDbName(label: string): string {
  return `msgx_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A database or role named `…_<pid>[_<random>]` whose process is gone. */
export function ofDeadRun(name: string): boolean {
  const pid = Number(/_(\d+)(?:_[a-z0-9]+)?$/.exec(name)?.[1]);
  return Number.isFinite(pid) && pid !== process.pid && !isProcessAlive(pid);
}

/** PostgreSQL database `name` afresh (a leftover of that name is dropped), empty or a copy of `template`. */
export async function createPgDatabase(name: string, template?: string): Promise<string> {
  await withAdminClient(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.query(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`);
  });
  return dbUrl(name);
}

export async function dropPgDatabase(name: string): Promise<void> {
  await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/**
 * MariaDB database `name` afresh (a leftover of that name is dropped), with the shared mailbox DDL
 * applied (test/dev only); returns its URL.
 */
export async function createMailboxDatabase(name: string): Promise<string> {
  await withMysqlAdmin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
    await c.query(`USE \`${name}\``);
    for (const f of (await readdir(MYSQL_DDL_DIR)).filter((n) => n.endsWith('.sql')).sort()) {
      await c.query(await readFile(path.join(MYSQL_DDL_DIR, f), 'utf8'));
    }
  });
  return withDatabase(TEST_MYSQL_ADMIN_URL, name);
}

export async function dropMailboxDatabase(name: string): Promise<void> {
  await withMysqlAdmin((c) => c.query(`DROP DATABASE IF EXISTS \`${name}\``));
}

/** A pool on a mailbox database, for assertions and for playing the AODB side. */
export const mailboxPool = (url: string): mysql.Pool =>
  mysql.createPool({ uri: url, connectionLimit: 4, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true, charset: 'utf8mb4' });

/**
 * Drop the databases (PostgreSQL and MariaDB) whose name starts with `prefix` and whose run is gone
 * (`isStale`, by default: the pid in the name is not alive). Returns their names.
 */
export async function dropStaleDatabases(prefix: string, isStale: (name: string) => boolean = ofDeadRun): Promise<string[]> {
  const like = prefix.replace(/_/g, '\\_') + '%';
  const dropped: string[] = [];
  await withAdminClient(async (c) => {
    const { rows } = await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [like]);
    for (const { datname } of rows.filter((r) => isStale(r.datname))) {
      await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      dropped.push(datname);
    }
  });
  await withMysqlAdmin(async (c) => {
    const [rows] = await c.query<mysql.RowDataPacket[]>('SHOW DATABASES LIKE ?', [like]);
    for (const name of rows.map((row) => String(Object.values(row)[0])).filter(isStale)) {
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      dropped.push(`mysql:${name}`);
    }
  });
  return dropped;
}

interface Owned<P> {
  readonly name: string;
  readonly url: string;
  readonly pool: P;
  drop(): Promise<void>;
}

/** A database this test made, with its pool: drop() ends the pool and drops the database. */
const owned = <P extends { end(): Promise<void> }>(name: string, url: string, pool: P, dropDb: (name: string) => Promise<void>): Owned<P> => ({
  name,
  url,
  pool,
  async drop() {
    await pool.end().catch(() => undefined);
    await dropDb(name);
  },
});

export type TestDatabase = Owned<pg.Pool>;

/**
 * A fresh PostgreSQL database for one test file: a clone of the migrated template that globalSetup
 * built, or with `{ migrated: false }` an empty one (migration-runner tests). drop() ends the pool
 * and drops the database.
 */
export async function createTestDatabase(label = 't', { migrated = true }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = testDbName(label);
  const url = await createPgDatabase(name, migrated ? templateDb() : undefined);
  return owned(name, url, createPool(url, { max: 10, applicationName: `msgx-test-${label}` }), dropPgDatabase);
}

/** Its pool is for assertions and for playing the AODB side. */
export type TestMailbox = Owned<mysql.Pool>;

/** A fresh MariaDB database with the shared mailbox DDL applied (test/dev only). */
export async function createTestMailbox(label = 't'): Promise<TestMailbox> {
  const name = testDbName(label);
  const url = await createMailboxDatabase(name);
  return owned(name, url, mailboxPool(url), dropMailboxDatabase);
}
