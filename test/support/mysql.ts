import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import mysql from 'mysql2/promise';

/** The machine's real MariaDB (override with MSGX_TEST_MYSQL_URL). */
export const TEST_MYSQL_ADMIN_URL = process.env.MSGX_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const MYSQL_DDL_DIR = fileURLToPath(new URL('../../migrations/mysql/', import.meta.url));

export interface TestMysql {
  readonly name: string;
  readonly url: string;
  /** A pool on the test database for assertions and for playing the AODB side. */
  readonly pool: mysql.Pool;
  drop(): Promise<void>;
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

/**
 * Database `name` on the test MariaDB, afresh (a leftover of that name is dropped), with the shared
 * mailbox DDL applied (test/dev only); returns its URL. The bench makes its databases with it too.
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
  const u = new URL(TEST_MYSQL_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh MariaDB database with the shared mailbox DDL applied (test/dev only). */
export async function createTestMysql(label = 't'): Promise<TestMysql> {
  const name = `msgx_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const url = await createMailboxDatabase(name);
  const pool = mysql.createPool({ uri: url, connectionLimit: 4, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true });
  return {
    name,
    url,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      await withMysqlAdmin((c) => c.query(`DROP DATABASE IF EXISTS \`${name}\``));
    },
  };
}
