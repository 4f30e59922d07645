import { mkdtemp, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MigrationChangedError, PG_MIGRATIONS_DIR, migrate } from '../../src/platform/migrate.ts';
import { sqlState } from '../../src/platform/db.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { appendDecision } from '../support/decisions.ts';

describe('migrations runner', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('migr', { migrated: false });
  });
  afterAll(async () => db.drop());

  it('two migrators at once apply every file exactly once', async () => {
    const [a, b] = await Promise.all([migrate(db.pool), migrate(db.pool)]);
    const files = (await import('node:fs')).readdirSync(PG_MIGRATIONS_DIR).filter((f) => f.endsWith('.sql'));
    expect([...a, ...b].sort()).toEqual(files.sort());
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM schema_migration');
    expect(rows[0].n).toBe(files.length);
    expect(await migrate(db.pool)).toEqual([]);
  });

  it('refuses to run when an applied file changed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'msgx-mig-'));
    await cp(PG_MIGRATIONS_DIR, dir, { recursive: true });
    await writeFile(path.join(dir, '001_write_side.sql'), '-- edited\n', { flag: 'a' });
    await expect(migrate(db.pool, undefined, dir)).rejects.toBeInstanceOf(MigrationChangedError);
  });

  it('decision_event refuses UPDATE, DELETE and TRUNCATE', async () => {
    await appendDecision(db.pool, { msgId: '1', payload: { changes: [] }, recordedAt: new Date() });
    for (const sql of ['UPDATE decision_event SET kind = $$x$$', 'DELETE FROM decision_event', 'TRUNCATE decision_event']) {
      const err = await db.pool.query(sql).then(() => null, (e: unknown) => e);
      expect(err, sql).not.toBeNull();
      expect(sqlState(err)).toBe('P0001');
    }
    const { rows } = await db.pool.query('SELECT kind FROM decision_event');
    expect(rows).toEqual([{ kind: 'Applied' }]);
  });

  it('stores the big values with lz4 where the server has it: every partition, and a month made later', async () => {
    const lz4 = await db.pool.query("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)");
    const compression = async () => (await db.pool.query<{ rel: string; c: string }>(
      `SELECT c.relname AS rel, a.attcompression AS c FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE (c.relname LIKE 'decision_event%' AND a.attname = 'payload') OR (c.relname LIKE 'inbox_message%' AND a.attname = 'raw_xml')
           OR (c.relname = 'msg_event' AND a.attname = 'payload')`)).rows;
    await db.pool.query("SELECT msgx_month_partition('decision_event', '2031-05-01')");
    const rows = await compression();
    expect(rows.map((r) => r.rel)).toEqual(expect.arrayContaining(['decision_event', 'decision_event_y2031m05', 'inbox_message', 'msg_event']));
    expect(new Set(rows.map((r) => r.c))).toEqual(new Set([lz4.rowCount === 1 ? 'l' : '']));
  });
});

