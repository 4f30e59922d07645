import pg from 'pg';
import { createPool } from '../../src/platform/db.ts';
import { migrate } from '../../src/platform/migrate.ts';
import { TEST_PG_ADMIN_URL, dbUrl } from './pg.ts';
import { isProcessAlive } from '../../src/platform/processAlive.ts';

/** A test database or role named `…_<pid>[_<random>]` whose process is gone. */
function ofDeadRun(name: string): boolean {
  const pid = Number(/_(\d+)(?:_[a-z0-9]+)?$/.exec(name)?.[1]);
  return Number.isFinite(pid) && !isProcessAlive(pid);
}

/**
 * Build a migrated template database once per run (named after this process, so parallel runs
 * don't collide); every integration test file clones it. Databases and test roles left by killed
 * runs — their name carries a pid that is no longer alive — are dropped.
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
      if (ofDeadRun(datname)) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    // Roles of the privilege tests (test/reliability/support/pgRoles.ts) are cluster-global too.
    const roles = await c.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname LIKE 'msgx\\_t\\_%'");
    for (const { rolname } of roles.rows) {
      if (ofDeadRun(rolname)) await c.query(`DROP ROLE IF EXISTS "${rolname}"`).catch(() => undefined); // still granted somewhere: next time
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

