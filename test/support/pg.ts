import pg from 'pg';
import { createPool } from '../../src/platform/db.ts';

/** Admin URL of the machine's real PostgreSQL (override with MSGX_TEST_PG_URL). */
export const TEST_PG_ADMIN_URL = process.env.MSGX_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const templateDb = () => process.env.MSGX_TEST_TEMPLATE_DB ?? 'msgx_template';

export function dbUrl(database: string): string {
  const u = new URL(TEST_PG_ADMIN_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  readonly pool: pg.Pool;
  drop(): Promise<void>;
}

/**
 * A fresh database for one test file, cloned from the migrated template that globalSetup built.
 * Names are unique per call; drop() ends the pool and drops the database.
 */
export async function createTestDatabase(label = 't'): Promise<TestDatabase> {
  const name = `msgx_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${templateDb()}"`));
  const url = dbUrl(name);
  const pool = createPool(url, { max: 10, applicationName: `msgx-test-${label}` });
  return {
    name,
    url,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** An empty database (no migrations), for migration-runner tests. */
export async function createEmptyDatabase(label = 'empty'): Promise<TestDatabase> {
  const name = `msgx_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = dbUrl(name);
  const pool = createPool(url, { max: 10 });
  return {
    name,
    url,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

export { admin as withAdminClient };
