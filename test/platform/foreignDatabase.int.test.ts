/**
 * msgx refuses to migrate a database that is not meant for it (another application's tables, or
 * PostgreSQL's maintenance database) unless forced, and says why — nothing is created in it.
 */
import pg from 'pg';
import { beforeAll, expect, it } from 'vitest';
import { refuseForeignDatabase } from '../../src/platform/foreignDatabase.ts';
import { migrate } from '../../src/platform/migrate.ts';
import { RefusedError } from '../../src/platform/errors.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';
import { TEST_PG_ADMIN_URL } from '../support/databases.ts';
import { fileDatabase } from '../support/fileDatabase.ts';

const db = fileDatabase('foreign', { migrated: false });
beforeAll(async () => {
  await db.pool.query('CREATE TABLE customer (id int PRIMARY KEY); CREATE SCHEMA billing; CREATE TABLE billing.invoice (id int)');
});

const tableNames = async () =>
  (await db.pool.query<{ t: string }>(`SELECT table_schema || '.' || table_name AS t FROM information_schema.tables
     WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`)).rows.map((r) => r.t);

it('refuses a database holding tables that msgx never migrated, naming them, and creates nothing', async () => {
  const err = await migrate(db.pool).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RefusedError);
  expect((err as Error).message).toMatch(/holds tables that are not msgx's \(billing\.invoice, public\.customer\).*--force/);
  expect(await tableNames()).toEqual(['billing.invoice', 'public.customer']);
});

it('msgx migrate says so in one line and exits 1', async () => {
  const p = spawnMsgx(['migrate'], { MSGX_DATABASE_URL: db.url, MSGX_LOG_LEVEL: 'info' });
  expect((await p.exit).code).toBe(1);
  expect(p.stderr()).toMatch(/^msgx migrate: refusing to migrate database '[^']+': it holds tables that are not msgx's/m);
  expect(p.stderr()).not.toMatch(/\bat .*\.(ts|js):\d+/);
}, 60_000);

it('refuses PostgreSQL\'s maintenance database even when it is empty', async () => {
  const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await c.connect();
  try {
    expect((await c.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db).toBe('postgres');
    await expect(refuseForeignDatabase(c, false)).rejects.toThrow(/'postgres': it is PostgreSQL's maintenance database/);
  } finally {
    await c.end();
  }
});

it('--force migrates beside the foreign tables; from then on the database is msgx\'s', async () => {
  const applied = await migrate(db.pool, undefined, undefined, { force: true });
  expect(applied.length).toBeGreaterThan(0);
  expect(await tableNames()).toContain('public.decision_event');
  expect(await migrate(db.pool)).toEqual([]); // no --force needed any more
});
