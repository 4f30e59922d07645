/**
 * `msgx archive` and `msgx restore` on a real database (docs/operations.md "Archive a month"):
 * three months of a generated log; the oldest two archived, the live tables shrink, the files
 * check with their sha256 file, readers that would fold the hole refuse naming the restore, a
 * crash at each archive step loses nothing and a rerun finishes, restore gives back the very rows
 * and the log stays append-only on the restored partitions.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archivedDecisions, archivedMonthOfMessage, refuseArchivedAfter } from '../../src/log/archivedHistory.ts';
import { RefusedError } from '../../src/platform/errors.ts';
import { noFaults, type FaultPoint, type Faults } from '../../src/platform/faults.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { archiveHistory } from '../../src/operations/archive/archiveHistory.ts';
import { parseChecksums } from '../../src/operations/archive/archiveFile.ts';
import { restoreMonth } from '../../src/operations/archive/restoreMonth.ts';
import { ensureMonthsAhead, HISTORY_TABLES, MONTHS_AHEAD, partitionName } from '../../src/log/historyMonths.ts';
import { rebuildFlightsRecorded } from '../../src/operations/rebuild.ts';
import { logHead } from '../../src/log/head.ts';
import { WriteModel } from '../../src/write/pump/writeModel.ts';
import { foldFingerprint } from '../../src/write/snapshot/foldFingerprint.ts';
import { warmModel } from '../../src/write/snapshot/warmModel.ts';
import { monthRows as rowsOf, seedMonth, snapshotAtHead as snapshotOf } from '../support/historyMonths.ts';
import { captureLog } from '../reliability/support/captureLog.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';

const MONTHS = ['2026-01', '2026-02', '2026-03'] as const;
const PER_MONTH = 120;
const NOW = new Date('2026-04-10T12:00:00Z');

/** A port that throws at one point (the transaction open there rolls back, as a kill leaves it). */
class Crash extends Error {}
const crashAt = (point: FaultPoint): Faults => ({
  reached(p) {
    if (p === point) throw new Crash(`crash at ${p}`);
  },
});

const monthRows = (db: TestDatabase, month: string) => rowsOf(db.pool, month);
const snapshotAtHead = (db: TestDatabase, fingerprint: string) => snapshotOf(db.pool, fingerprint);

const count = async (db: TestDatabase, table: string): Promise<number> =>
  Number((await db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`)).rows[0]!.n);

const exists = async (db: TestDatabase, rel: string): Promise<boolean> =>
  (await db.pool.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [rel])).rows[0]!.r !== null;

describe('msgx archive / msgx restore', () => {
  let db: TestDatabase;
  let dir: string;
  const before: Record<string, Record<string, string[]>> = {};
  const deps = (faults: Faults = noFaults) => ({ pool: db.pool, log: silentLogger, faults, now: () => NOW });

  beforeAll(async () => {
    db = await createTestDatabase('archive');
    dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-archive-'));
    for (const [i, m] of MONTHS.entries()) await seedMonth(db.pool, m, 1000 + i * PER_MONTH, PER_MONTH);
    for (const m of MONTHS) before[m] = await monthRows(db, m);
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses the current month, which holds its own decision', async () => {
    await expect(archiveHistory(deps(), '2026-05', dir, 'test')).rejects.toThrow(/current month 2026-04/);
  });

  it('refuses a month no snapshot of this fold code covers: a start could not fold the model once it is gone', async () => {
    await expect(archiveHistory(deps(), '2026-02', dir, 'test')).rejects.toThrow(
      new RefusedError(`archive 2026-01: no write-model snapshot of this fold code covers its last decision (position ${PER_MONTH}; none stored). ` +
        'Without one, a start could not fold the model once the month is gone: let the writer run this version until it records a snapshot (every MSGX_SNAPSHOT_EVERY decisions), then archive again'),
    );
    // One made by other fold code does not count.
    await snapshotAtHead(db, '0:other-fold-code');
    await expect(archiveHistory(deps(), '2026-02', dir, 'test')).rejects.toThrow(/no write-model snapshot of this fold code covers its last decision \(position 120; none stored\)/);
    expect((await db.pool.query('SELECT * FROM history_archive')).rows).toEqual([]);
    expect(await snapshotAtHead(db, foldFingerprint())).toBe(String(MONTHS.length * PER_MONTH));
  });

  it('a crash after the files are written leaves the month in the database; one after the record, a rerun finishes', async () => {
    const live = await count(db, 'decision_event');
    await expect(archiveHistory(deps(crashAt('archive.written')), '2026-02', dir, 'test')).rejects.toThrow(Crash);
    expect(await count(db, 'decision_event')).toBe(live);
    expect(await exists(db, partitionName('decision_event', '2026-01'))).toBe(true);
    expect((await db.pool.query('SELECT * FROM history_archive')).rows).toEqual([]);

    await expect(archiveHistory(deps(crashAt('archive.dropping')), '2026-02', dir, 'test')).rejects.toThrow(Crash);
    // Recorded (decision + rows), not dropped: the month is still whole in the database.
    expect(await monthRows(db, '2026-01')).toEqual(before['2026-01']);
    const recorded = await db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM decision_event WHERE kind = 'HistoryArchived'`);
    expect(recorded.rows[0]!.n).toBe('1');

    const done = await archiveHistory(deps(), '2026-02', dir, 'test');
    expect(done.map((m) => [m.month, m.resumed])).toEqual([['2026-01', true]]);
    // The rerun did not record the month twice.
    const again = await db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM decision_event WHERE kind = 'HistoryArchived'`);
    expect(again.rows[0]!.n).toBe('1');
  });

  it('archives the next month: the live tables shrink, and the files check against their sha256 file', async () => {
    const liveBefore = await count(db, 'decision_event');
    const done = await archiveHistory(deps(), '2026-03', dir, 'test');
    expect(done.map((m) => m.month)).toEqual(['2026-02']);
    // PER_MONTH decisions left; the HistoryArchived decision (current month) came in.
    expect(await count(db, 'decision_event')).toBe(liveBefore - PER_MONTH + 1);
    expect(await count(db, 'inbox_message')).toBe(PER_MONTH);
    for (const m of ['2026-01', '2026-02']) {
      for (const { table } of HISTORY_TABLES) expect(await exists(db, partitionName(table, m))).toBe(false);
      const sums = parseChecksums(await readFile(path.join(dir, `msgx-history-${m}.sha256`), 'utf8'));
      expect(sums.map((s) => s.base).sort()).toEqual(HISTORY_TABLES.map((t) => `msgx-history-${m}.${t.table}.ndjson.gz`).sort());
      for (const s of sums) expect(createHash('sha256').update(await readFile(path.join(dir, s.base))).digest('hex')).toBe(s.sha256);
    }
    const archived = await archivedDecisions(db.pool);
    expect(archived.months.map((m) => m.month)).toEqual(['2026-01', '2026-02']);
    expect(archived.upTo).toBe(String(2 * PER_MONTH)); // the HistoryArchived decisions sit in the current month, after March's
  });

  it('names the archive file for an archived message, and refuses a fold of the archived positions', async () => {
    const m = await archivedMonthOfMessage(db.pool, String(1000 + PER_MONTH + 5));
    expect(m).toMatchObject({ month: '2026-02', restoreFile: path.join(dir, 'msgx-history-2026-02.sha256') });
    expect(await archivedMonthOfMessage(db.pool, String(1000 + 2 * PER_MONTH + 5))).toBeUndefined();
    await expect(refuseArchivedAfter(db.pool, '0', 'msgx verify')).rejects.toThrow(
      new RefusedError(`msgx verify reads the log from position 0, but positions up to ${2 * PER_MONTH} are archived (2026-01, 2026-02); ` +
        `restore them first: msgx restore ${path.join(dir, 'msgx-history-2026-01.sha256')}; msgx restore ${path.join(dir, 'msgx-history-2026-02.sha256')}`),
    );
    await expect(rebuildFlightsRecorded({ pool: db.pool, clock: systemClock, log: silentLogger }, { startedBy: 'test', full: true }))
      .rejects.toThrow(/rebuild --full reads the log from position 0, .*msgx restore/);
    // Refused before it went on record.
    const rebuilds = await db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM decision_event WHERE kind = 'RebuildRequested'`);
    expect(rebuilds.rows[0]!.n).toBe('0');
  });

  it('a start folds from the snapshot past the archived months; one without a snapshot of its fold code refuses, naming the restore commands', async () => {
    const cap = captureLog('info');
    const m = new WriteModel();
    expect(await warmModel(db.pool, m, cap.log)).toMatchObject({ from: 'snapshot', snapshot: String(MONTHS.length * PER_MONTH) });
    expect(m.position).toBe(await logHead(db.pool));

    // Changed fold code: the stored snapshots are of other code.
    await db.pool.query(`UPDATE write_model_snapshot SET fingerprint = '0:other-fold-code'`);
    try {
      await expect(warmModel(db.pool, new WriteModel(), captureLog('info').log)).rejects.toThrow(
        new RefusedError(`the write model (no snapshot of this fold code: the stored ones were made by other fold code) reads the log from position 0, but positions up to ${2 * PER_MONTH} are archived (2026-01, 2026-02); ` +
          `restore them first: msgx restore ${path.join(dir, 'msgx-history-2026-01.sha256')}; msgx restore ${path.join(dir, 'msgx-history-2026-02.sha256')}`),
      );
    } finally {
      await db.pool.query('UPDATE write_model_snapshot SET fingerprint = $1', [foldFingerprint()]);
    }
  });

  it('a standby without a usable snapshot exits 1 naming the restore commands, like a writer start (it does not wait and retry)', { timeout: 120_000 }, async () => {
    await db.pool.query(`UPDATE write_model_snapshot SET fingerprint = '0:other-fold-code'`);
    try {
      const standby = spawnMsgx(['start', '--role', 'writer', '--standby'], {
        MSGX_DATABASE_URL: db.url, MSGX_HTTP_PORT: '0', MSGX_HTTP_HOST: '127.0.0.1', MSGX_DATA_DIR: dir, MSGX_LOG_LEVEL: 'info',
      });
      const exit = await standby.exit;
      expect(exit.code).toBe(1);
      expect(standby.stderr()).toContain(
        `msgx start: the write model (no snapshot of this fold code: the stored ones were made by other fold code) reads the log from position 0, but positions up to ${2 * PER_MONTH} are archived (2026-01, 2026-02); ` +
          `restore them first: msgx restore ${path.join(dir, 'msgx-history-2026-01.sha256')}; msgx restore ${path.join(dir, 'msgx-history-2026-02.sha256')}`,
      );
      expect(standby.stderr()).not.toContain('folding on in the background');
    } finally {
      await db.pool.query('UPDATE write_model_snapshot SET fingerprint = $1', [foldFingerprint()]);
    }
  });

  it('refuses a month whose checksum file is missing, and a name that is no archive file', async () => {
    await expect(restoreMonth(deps(), path.join(dir, 'notes.txt'), 'test')).rejects.toThrow(/msgx-history-YYYY-MM.sha256/);
    await expect(restoreMonth(deps(), path.join(dir, 'msgx-history-2025-07.sha256'), 'test')).rejects.toThrow(/cannot read/);
  });

  it('restore gives back identical rows, once; a crash before its commit leaves the month archived', async () => {
    const file = path.join(dir, 'msgx-history-2026-01.sha256');
    await expect(restoreMonth(deps(crashAt('restore.loaded')), file, 'test')).rejects.toThrow(Crash);
    expect(await exists(db, partitionName('decision_event', '2026-01'))).toBe(false);

    const r = await restoreMonth(deps(), file, 'test');
    expect(r.decision).not.toBeNull();
    expect(await monthRows(db, '2026-01')).toEqual(before['2026-01']);
    const second = await restoreMonth(deps(), file, 'test');
    expect(second.decision).toBeNull();
    expect(await monthRows(db, '2026-01')).toEqual(before['2026-01']);

    const r2 = await restoreMonth(deps(), path.join(dir, 'msgx-history-2026-02.decision_event.ndjson.gz'), 'test');
    expect(r2.month).toBe('2026-02');
    expect(await monthRows(db, '2026-02')).toEqual(before['2026-02']);
    expect(await archivedDecisions(db.pool)).toEqual({ upTo: '0', months: [] });
    await refuseArchivedAfter(db.pool, '0', 'msgx verify');
  });

  it('the restored partitions are append-only: UPDATE, DELETE and TRUNCATE refused', async () => {
    const p = partitionName('decision_event', '2026-01');
    await expect(db.pool.query('UPDATE decision_event SET kind = kind WHERE position = 1')).rejects.toThrow(/append-only/i);
    await expect(db.pool.query(`DELETE FROM ${p} WHERE position = 1`)).rejects.toThrow(/append-only/i);
    await expect(db.pool.query(`TRUNCATE ${p}`)).rejects.toThrow(/append-only/i);
    await expect(db.pool.query('TRUNCATE decision_event')).rejects.toThrow(/append-only/i);
  });

  it('keeps twelve months ahead of the clock (the writer\'s hourly jobs), once', async () => {
    const at = new Date('2030-06-15T00:00:00Z');
    expect(await exists(db, partitionName('inbox_message', '2031-06'))).toBe(false);
    expect(await ensureMonthsAhead(db.pool, at)).toBe(3 * (MONTHS_AHEAD + 1));
    for (const { table } of HISTORY_TABLES) expect(await exists(db, partitionName(table, '2031-06'))).toBe(true);
    expect(await ensureMonthsAhead(db.pool, at)).toBe(0);
    await expect(db.pool.query(`TRUNCATE ${partitionName('decision_event', '2031-06')}`)).rejects.toThrow(/append-only/i);
  });

  it('leaves the months ahead to its next run while a reader holds a table longer than its lock timeout (a backup), and never waits longer', async () => {
    const at = new Date('2040-01-15T00:00:00Z');
    const backup = await db.pool.connect();
    try {
      await backup.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await backup.query('SELECT count(*) FROM decision_event'); // holds ACCESS SHARE on it and its partitions to the end
      // decision_event's first month waits 100 ms for the DEFAULT partition's lock, and the run ends there.
      expect(await ensureMonthsAhead(db.pool, at, '100ms')).toBe(0);
      expect(await exists(db, partitionName('decision_event', '2040-01'))).toBe(false);
    } finally {
      await backup.query('ROLLBACK');
      backup.release();
    }
    expect(await ensureMonthsAhead(db.pool, at)).toBe(3 * (MONTHS_AHEAD + 1));
    for (const { table } of HISTORY_TABLES) expect(await exists(db, partitionName(table, '2041-01'))).toBe(true);
    // The log's guards on the attached month: the row trigger cloned from the parent, its own TRUNCATE trigger.
    const triggers = await db.pool.query<{ t: string }>('SELECT tgname AS t FROM pg_trigger WHERE tgrelid = $1::regclass ORDER BY 1', [partitionName('decision_event', '2040-01')]);
    expect(triggers.rows.map((r) => r.t)).toEqual(['decision_event_no_truncate', 'decision_event_no_update']);
    await expect(db.pool.query(`TRUNCATE ${partitionName('decision_event', '2040-01')}`)).rejects.toThrow(/append-only/i);
  });
});
