/**
 * `msgx archive` of months whose rows sit in the DEFAULT partitions (docs/operations.md "Archive a
 * month"): rows written with a past month's time after the partitions were made (an import, a
 * generated history) are split into partitions of their own first, then archived and restored like
 * any month; the DEFAULT partition is left empty, its space returned, and stays append-only.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archivedMonthOfMessage } from '../../src/log/archivedHistory.ts';
import { HISTORY_TABLES, monthsInDefault, splitDefaultIntoMonths, partitionName } from '../../src/log/historyMonths.ts';
import { archiveHistory } from '../../src/operations/archive/archiveHistory.ts';
import { restoreMonth } from '../../src/operations/archive/restoreMonth.ts';
import { withTransaction, type Pool, type Queryable } from '../../src/platform/db.ts';
import { noFaults } from '../../src/platform/faults.ts';
import { foldFingerprint } from '../../src/write/snapshot/foldFingerprint.ts';
import { captureLog } from '../reliability/support/captureLog.ts';
import { waitFor } from '../support/waitFor.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { monthRows, seedMonth, snapshotAtHead } from '../support/historyMonths.ts';

const PER_MONTH = 40;
const NOW = new Date('2026-04-10T12:00:00Z');

describe('msgx archive of months in the DEFAULT partitions', () => {
  let db: TestDatabase;
  let dir: string;
  const before: Record<string, Record<string, string[]>> = {};
  const cap = captureLog('info');
  const deps = () => ({ pool: db.pool, log: cap.log, faults: noFaults, now: () => NOW });
  /** Rows of the seeded months (before March) in a table's DEFAULT partition. */
  const inDefault = async (spec: (typeof HISTORY_TABLES)[number]): Promise<number> =>
    Number((await db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${spec.table}_default WHERE ${spec.partitionKey} < '2026-03-01'`)).rows[0]!.n);
  const exists = async (rel: string): Promise<boolean> =>
    (await db.pool.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [rel])).rows[0]!.r !== null;

  beforeAll(async () => {
    db = await createTestDatabase('archivedefault');
    dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-archive-default-'));
    // The database's months start at the real clock's: these months have no partition of their own.
    for (const [i, m] of ['2026-01', '2026-02'].entries()) await seedMonth(db.pool, m, 5000 + i * PER_MONTH, PER_MONTH, { inDefault: true });
    for (const m of ['2026-01', '2026-02']) before[m] = await monthRows(db.pool, m);
    await snapshotAtHead(db.pool, foldFingerprint());
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('waits at most its lock timeout for readers of the table, and then moves nothing', async () => {
    const reader = await db.pool.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM decision_event');
      const months = await monthsInDefault(db.pool, HISTORY_TABLES[0]);
      await expect(withTransaction(db.pool, (c) => splitDefaultIntoMonths(c, HISTORY_TABLES[0], months, '200ms'))).rejects.toMatchObject({ code: '55P03' });
    } finally {
      await reader.query('ROLLBACK');
      reader.release();
    }
    for (const spec of HISTORY_TABLES) expect(await inDefault(spec)).toBe(2 * PER_MONTH);
    expect(await exists(partitionName('decision_event', '2026-01'))).toBe(false);
  });

  /**
   * A database of its own, for a test that must not leave rows in the shared one: five decisions
   * (with their messages) of January 2026 in its DEFAULT partitions ('default', to split) or in
   * January's partitions with a snapshot after them ('partition', to archive); dropped after `fn`.
   */
  async function withJanuary(label: string, where: 'default' | 'partition', fn: (pool: Pool) => Promise<void>): Promise<void> {
    const other = await createTestDatabase(label);
    try {
      await seedMonth(other.pool, '2026-01', 9000, 5, { inDefault: where === 'default' });
      if (where === 'partition') await snapshotAtHead(other.pool, foldFingerprint());
      await fn(other.pool);
    } finally {
      await other.drop();
    }
  }

  it('refuses, moving nothing, when a row reaches the DEFAULT partition between its copy and its lock', async () => {
    await withJanuary('archivesplitrace', 'default', async (pool) => {
      const spec = HISTORY_TABLES[1];
      const months = await monthsInDefault(pool, spec);
      // Another session appends a January message just before the split locks the DEFAULT partition (its copy is done).
      const late = `INSERT INTO inbox_message (msg_id, received_at, ingested_at, type, raw_xml) VALUES (9999, '2026-01-20', '2026-01-20', 'FLOP', '<late/>')`;
      await expect(
        withTransaction(pool, (c) => {
          const racing = {
            query: async (sql: string, params?: unknown[]) => {
              if (sql.startsWith(`LOCK TABLE ${spec.table}_default`)) await pool.query(late);
              return c.query(sql, params);
            },
          } as unknown as Queryable;
          return splitDefaultIntoMonths(racing, spec, months);
        }),
      ).rejects.toThrow('inbox_message: rows were written into its DEFAULT partition during the split (6 there, 5 copied); nothing moved — run it again');
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM inbox_message_default`);
      expect(rows[0]!.n).toBe(6);
      expect((await pool.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [partitionName(spec.table, '2026-01')])).rows[0]!.r).toBeNull();
      // Run again, nothing racing: the six rows move.
      expect(await withTransaction(pool, (c) => splitDefaultIntoMonths(c, spec, months))).toMatchObject({ rows: 6 });
    });
  });

  it('a drop that waits longer than its lock timeout for a reader (a backup) refuses, recorded and whole; the next run drops', async () => {
    await withJanuary('archivebusy', 'partition', async (pool) => {
      const backup = await pool.connect();
      try {
        await backup.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        await backup.query('SELECT count(*) FROM decision_event');
        await expect(archiveHistory({ ...deps(), pool: pool, lockTimeout: '200ms' }, '2026-02', path.join(dir, 'busy'), 'test')).rejects.toThrow(
          'archive 2026-01: the history tables stayed busy for 200ms (long transactions reading them, a backup); recorded but not dropped — run msgx archive again',
        );
      } finally {
        await backup.query('ROLLBACK');
        backup.release();
      }
      const recorded = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM history_archive WHERE dropped_at IS NULL');
      expect(recorded.rows[0]!.n).toBe(3);
      expect(await monthRows(pool, '2026-01')).toMatchObject({ decision_event: expect.arrayContaining([expect.any(String)]) });
      const done = await archiveHistory({ ...deps(), pool: pool }, '2026-02', path.join(dir, 'busy'), 'test');
      expect(done.map((d) => [d.month, d.resumed])).toEqual([['2026-01', true]]);
    });
  });

  /**
   * Hold a writer's lock on `relation` (nothing in msgx writes there: a test stand-in), start `work`,
   * wait until it waits for that lock, and return how many rows of decision_event a reader counts
   * meanwhile (with a 2 s lock timeout: a reader queued behind the waiting work fails); then let
   * the writer go and return what `work` gave.
   */
  async function readerWhileWaiting<T>(pool: Pool, relation: string, work: () => Promise<T>): Promise<{ read: string; result: T }> {
    const writer = await pool.connect();
    const reader = await pool.connect();
    let running: Promise<T> | undefined;
    try {
      await writer.query('BEGIN');
      await writer.query(`LOCK TABLE ${relation} IN ROW EXCLUSIVE MODE`);
      running = work();
      await waitFor(async () => {
        const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = $1::regclass', [relation]);
        return rows[0]!.n === 1;
      });
      await reader.query("SET lock_timeout = '2s'");
      const read = (await reader.query<{ n: string }>('SELECT count(*)::text AS n FROM decision_event')).rows[0]!.n;
      await writer.query('ROLLBACK');
      return { read, result: await running };
    } finally {
      await writer.query('ROLLBACK').catch(() => undefined);
      await running?.catch(() => undefined);
      writer.release();
      reader.release();
    }
  }

  it('the split counts the DEFAULT partition under a lock that readers of the table pass', async () => {
    await withJanuary('archivesplitreaders', 'default', async (pool) => {
      const spec = HISTORY_TABLES[0];
      const months = await monthsInDefault(pool, spec);
      const { read, result } = await readerWhileWaiting(pool, 'decision_event_default', () =>
        withTransaction(pool, (c) => splitDefaultIntoMonths(c, spec, months)),
      );
      expect(read).toBe('5');
      expect(result).toMatchObject({ rows: 5 });
      expect((await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM decision_event_y2026m01')).rows[0]!.n).toBe(5);
    });
  });

  it('the drop counts a month under a lock that readers of the table pass; only its detaches hold them', async () => {
    await withJanuary('archivedropreaders', 'partition', async (pool) => {
      const { read, result } = await readerWhileWaiting(pool, partitionName('decision_event', '2026-01'), () =>
        archiveHistory({ ...deps(), pool: pool }, '2026-02', path.join(dir, 'readers'), 'test'),
      );
      expect(read).not.toBe('0');
      expect(result.map((d) => d.month)).toEqual(['2026-01']);
      const dropped = cap.text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'archive: month written, recorded and dropped');
      expect(dropped.at(-1)).toMatchObject({ month: '2026-01', lockedMs: expect.any(Number) });
    });
  });

  it('splits the DEFAULT partitions into months, archives the month before --before, and returns the space', async () => {
    const defaultBytes = async (table: string) =>
      Number((await db.pool.query<{ b: string }>('SELECT pg_total_relation_size($1)::text AS b', [`${table}_default`])).rows[0]!.b);
    const bytesBefore = await defaultBytes('inbox_message');
    const done = await archiveHistory(deps(), '2026-02', dir, 'test');
    expect(done.map((m) => m.month)).toEqual(['2026-01']);
    for (const spec of HISTORY_TABLES) {
      expect(await exists(partitionName(spec.table, '2026-01'))).toBe(false); // split into it, then archived and dropped
      expect(await exists(partitionName(spec.table, '2026-02'))).toBe(true); // split into it, kept
      expect(await inDefault(spec)).toBe(0);
    }
    // Truncated, not deleted row by row: the DEFAULT partition's pages are gone.
    expect(await defaultBytes('inbox_message')).toBeLessThan(bytesBefore / 2);
    const lines = cap.text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const split = lines.filter((l) => l.msg === 'archive: DEFAULT partition split into months');
    expect(split.map((l) => [l.table, l.months, l.rows])).toEqual(HISTORY_TABLES.map((t) => [t.table, ['2026-01', '2026-02'], 2 * PER_MONTH]));
    expect(await archivedMonthOfMessage(db.pool, '5003')).toMatchObject({ month: '2026-01', restoreFile: path.join(dir, 'msgx-history-2026-01.sha256') });
    expect(await monthRows(db.pool, '2026-02')).toEqual(before['2026-02']);
  });

  it('the DEFAULT partition and the split months are attached and append-only', async () => {
    // The HistoryArchived decision of NOW's month (no partition of its own here) is in the DEFAULT one.
    await expect(db.pool.query(`DELETE FROM decision_event_default`)).rejects.toThrow(/append-only/i);
    await expect(db.pool.query('TRUNCATE decision_event_default')).rejects.toThrow(/append-only/i);
    const february = partitionName('decision_event', '2026-02');
    await expect(db.pool.query(`UPDATE ${february} SET kind = kind`)).rejects.toThrow(/append-only/i);
    await expect(db.pool.query(`DELETE FROM ${february}`)).rejects.toThrow(/append-only/i);
    await expect(db.pool.query(`TRUNCATE ${february}`)).rejects.toThrow(/append-only/i);
    await expect(db.pool.query(`SELECT count(*)::int AS n FROM decision_event_default`)).resolves.toMatchObject({ rows: [{ n: 1 }] });
  });

  it('restore loads beside the live tables while a writer appends, and attaches a partition like those msgx makes', async () => {
    // A read in progress (a backup) holds the DEFAULT partitions past the attach's lock timeout: refused, nothing restored.
    const backup = await db.pool.connect();
    try {
      await backup.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await backup.query('SELECT count(*) FROM decision_event');
      await expect(restoreMonth({ ...deps(), lockTimeout: '200ms' }, path.join(dir, 'msgx-history-2026-01.sha256'), 'test')).rejects.toThrow(
        'restore 2026-01: the history tables stayed busy for 200ms at the attach (long transactions reading them, a backup); nothing restored — run msgx restore again',
      );
    } finally {
      await backup.query('ROLLBACK');
      backup.release();
    }
    expect(await exists(partitionName('decision_event', '2026-01'))).toBe(false);
    expect(await archivedMonthOfMessage(db.pool, '5003')).toMatchObject({ month: '2026-01' });
    // An append in progress holds ROW EXCLUSIVE on the parents: a restore that created its
    // partitions first (ACCESS EXCLUSIVE) would wait for it, here forever.
    const writer = await db.pool.connect();
    try {
      await writer.query('BEGIN');
      for (const { table } of HISTORY_TABLES) await writer.query(`LOCK TABLE ONLY ${table} IN ROW EXCLUSIVE MODE`);
      await restoreMonth(deps(), path.join(dir, 'msgx-history-2026-01.sha256'), 'test');
    } finally {
      await writer.query('ROLLBACK');
      writer.release();
    }
    expect(await monthRows(db.pool, '2026-01')).toEqual(before['2026-01']);
    const shape = async (partition: string) => {
      const { rows } = await db.pool.query<{ def: string; options: string[] | null }>(
        `SELECT replace(pg_get_indexdef(i.indexrelid), $1, 'P') AS def, c.reloptions AS options
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = $1::regclass ORDER BY 1`,
        [partition],
      );
      const triggers = await db.pool.query<{ t: string }>(`SELECT tgname AS t FROM pg_trigger WHERE tgrelid = $1::regclass ORDER BY 1`, [partition]);
      const grants = await db.pool.query<{ g: string }>(
        `SELECT grantee || ':' || privilege_type AS g FROM information_schema.role_table_grants WHERE table_name = $1 AND grantee <> current_user ORDER BY 1`,
        [partition],
      );
      const index = (d: string) => d.replace(/INDEX \S+ ON/, 'INDEX ON');
      return { indexes: rows.map((r) => [index(r.def), r.options]), triggers: triggers.rows.map((r) => r.t), grants: grants.rows.map((r) => r.g) };
    };
    for (const { table } of HISTORY_TABLES) {
      // February's partition was made by msgx_month_partition (the split); January's by the restore.
      expect(await shape(partitionName(table, '2026-01'))).toEqual(await shape(partitionName(table, '2026-02')));
    }
    await expect(db.pool.query(`DELETE FROM ${partitionName('decision_event', '2026-01')}`)).rejects.toThrow(/append-only/i);
    await expect(db.pool.query(`TRUNCATE ${partitionName('decision_event', '2026-01')}`)).rejects.toThrow(/append-only/i);
    expect((await restoreMonth(deps(), path.join(dir, 'msgx-history-2026-01.sha256'), 'test')).decision).toBeNull();
  });
});
