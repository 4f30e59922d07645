import { createPool } from '../../src/platform/db.ts';
import { migrate } from '../../src/platform/migrate.ts';
import { createPgDatabase, dropPgDatabase, dropStaleDatabases, ofDeadRun, TEST_PG_ADMIN_URL, withAdminClient } from './databases.ts';

/**
 * Build a migrated template database once per run (named after this process, so parallel runs
 * don't collide); every integration test file clones it. Databases (PostgreSQL and MariaDB) and
 * test roles left by killed runs — their name carries a pid that is no longer alive — are dropped.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const template = `msgx_tpl_${process.pid}`;
  process.env.MSGX_TEST_TEMPLATE_DB = template;
  try {
    await withAdminClient(async () => undefined);
  } catch (err) {
    throw new Error(`integration tests need PostgreSQL at ${TEST_PG_ADMIN_URL} (set MSGX_TEST_PG_URL): ${(err as Error).message}`, { cause: err });
  }
  await dropStaleDatabases('msgx_');
  // Roles of the privilege tests (test/reliability/support/pgRoles.ts) are cluster-global too.
  await withAdminClient(async (c) => {
    const roles = await c.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname LIKE 'msgx\\_t\\_%'");
    for (const { rolname } of roles.rows) {
      if (ofDeadRun(rolname)) await c.query(`DROP ROLE IF EXISTS "${rolname}"`).catch(() => undefined); // still granted somewhere: next time
    }
  });
  const pool = createPool(await createPgDatabase(template), { max: 2 });
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  return () => dropPgDatabase(template);
}
