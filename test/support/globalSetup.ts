import pg from 'pg';
import { createPool } from '../../src/platform/db.ts';
import { migrate } from '../../src/platform/migrate.ts';
import { TEST_PG_ADMIN_URL, dbUrl } from './pg.ts';
import { isProcessAlive } from '../../src/platform/processAlive.ts';

/**
 * Build a migrated template database once per run (named after this process, so parallel runs
 * don't collide); every integration test file clones it. Databases left by killed runs — their
 * name carries a pid that is no longer alive — are dropped.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const template = `msgx_tpl_${process.pid}`;
  process.env.MSGX_TEST_TEMPLATE_DB = template;
  const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  try {
    await c.connect();
  } catch (err) {
    throw new Error(`integration tests need PostgreSQL at ${TEST_PG_ADMIN_URL} (set MSGX_TEST_PG_URL): ${(err as Error).message}`, { cause: err });
  }
  try {
    const { rows } = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'msgx\\_%'");
    for (const { datname } of rows) {
      const pid = Number(/_(\d+)(?:_[a-z0-9]+)?$/.exec(datname)?.[1]);
      if (Number.isFinite(pid) && !isProcessAlive(pid)) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await c.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${template}"`);
  } finally {
    await c.end();
  }
  const pool = createPool(dbUrl(template), { max: 2 });
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  return async () => {
    const t = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
    await t.connect();
    await t.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`).finally(() => t.end());
  };
}

