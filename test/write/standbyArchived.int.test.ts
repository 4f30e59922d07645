/**
 * A `--standby` whose write model cannot be brought up without archived history refuses when its
 * background fold finds it, not only at start (docs/recovery.md "Archived history"): it stops,
 * naming the `msgx restore` commands, instead of retrying for ever while it waits for the lock.
 *   - A real `msgx start --role writer --standby`: its warm-up at start fails for another reason
 *     (the snapshot table locked past the database's lock_timeout), the background fold then
 *     finds no usable snapshot past the archived months → exit 1 with the restore commands.
 *   - Its follower in-process: the model warm at the end of January, February and March appended
 *     and February archived before the fold reads past January (the test holds the model's fold
 *     at its first statement) → the hole is refused, naming February's restore.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WRITER_LOCK_KEY } from '../../src/domain/contract.ts';
import { archiveHistory } from '../../src/operations/archive/archiveHistory.ts';
import type { Queryable } from '../../src/platform/db.ts';
import { RefusedError } from '../../src/platform/errors.ts';
import { noFaults } from '../../src/platform/faults.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { WriteModel } from '../../src/write/pump/writeModel.ts';
import { foldFingerprint } from '../../src/write/snapshot/foldFingerprint.ts';
import { createModelFollower } from '../../src/write/snapshot/modelFollower.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { seedMonth, snapshotAtHead } from '../support/historyMonths.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';
import { waitFor } from '../support/waitFor.ts';
import { writeStage } from './support/writeHarness.ts';

const PER_MONTH = 40;
const NOW = new Date('2026-04-10T12:00:00Z');
const stage = writeStage('standbyarchived');

const dirs: string[] = [];
const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function archiveDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-standby-archived-'));
  dirs.push(dir);
  return dir;
}

const archive = (db: { pool: TestDatabase['pool'] }, before: string, dir: string) =>
  archiveHistory({ pool: db.pool, log: silentLogger, faults: noFaults, now: () => NOW }, before, dir, 'test');

describe('a --standby whose background fold meets archived history', () => {
  it('exits 1 naming the restore commands when its warm-up, failed at start, finds no usable snapshot past the archived months', { timeout: 180_000 }, async () => {
    const db = await createTestDatabase('standbyarch');
    dbs.push(db);
    const dir = await archiveDir();
    for (const [i, m] of ['2026-01', '2026-02', '2026-03'].entries()) await seedMonth(db.pool, m, 1000 + i * PER_MONTH, PER_MONTH);
    await snapshotAtHead(db.pool, foldFingerprint());
    await archive(db, '2026-03', dir);
    // New fold code: no stored snapshot is usable, and January and February are gone.
    await db.pool.query(`UPDATE write_model_snapshot SET fingerprint = '0:other-fold-code'`);
    const dbName = new URL(db.url).pathname.slice(1);
    await db.pool.query(`ALTER DATABASE "${dbName}" SET lock_timeout = '300ms'`);

    // Another writer holds the lock (the standby waits), and the snapshot table is locked: the
    // standby's warm-up at start fails on its lock_timeout, which is no refusal.
    const holder = await db.pool.connect();
    const blocker = await db.pool.connect();
    try {
      expect((await holder.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [WRITER_LOCK_KEY])).rows[0]!.ok).toBe(true);
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE write_model_snapshot IN ACCESS EXCLUSIVE MODE');
      const standby = spawnMsgx(['start', '--role', 'writer', '--standby'], {
        MSGX_DATABASE_URL: db.url, MSGX_HTTP_PORT: '0', MSGX_HTTP_HOST: '127.0.0.1', MSGX_DATA_DIR: dir, MSGX_LOG_LEVEL: 'info',
        MSGX_BACKOFF_MS: '100', MSGX_REQUEST_REFERENCE_AT_START: 'false',
      });
      try {
        await standby.waitForLine('folding on in the background', { timeoutMs: 90_000 });
        await standby.waitForLine('standby: waiting for the writer lock', { timeoutMs: 30_000 });
        expect(standby.exited()).toBeNull();
        // The table free again: the background fold finds that the model needs the archived months.
        await blocker.query('COMMIT');
        const exit = await standby.exit;
        expect(exit.code).toBe(1);
        expect(standby.output()).toContain('standby: the write model cannot be brought up without archived history; stopping');
        expect(standby.stderr()).toContain(
          `msgx start: the write model (no snapshot of this fold code: the stored ones were made by other fold code) reads the log from position 0, but positions up to ${2 * PER_MONTH} are archived (2026-01, 2026-02); ` +
            `restore them first: msgx restore ${path.join(dir, 'msgx-history-2026-01.sha256')}; msgx restore ${path.join(dir, 'msgx-history-2026-02.sha256')}`,
        );
        // It never held the lock: nothing was decided or started as a writer.
        expect(standby.output()).not.toContain('writer lock taken');
      } finally {
        if (standby.exited() === null) await standby.stop('SIGKILL', 10_000);
      }
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      blocker.release();
      holder.release(true);
    }
  });

  it('stops, naming the restore, when decisions after its model are archived while it lags behind (a hole it can never fold)', { timeout: 120_000 }, async () => {
    const dir = await archiveDir();
    // Only a decision's NOTIFY or a poll an hour away wakes the follower.
    const rt = stage.runtime({ env: { MSGX_POLL_INTERVAL_MS: '3600000' } });
    await seedMonth(stage.db.pool, '2026-01', 1000, PER_MONTH);
    await snapshotAtHead(stage.db.pool, foldFingerprint());
    const model = new WriteModel();
    const refusals: Error[] = [];
    const follower = createModelFollower(rt, model, { follow: true, onRefused: (err) => refusals.push(err) });
    await follower.start();
    try {
      expect(model.position).toBe(String(PER_MONTH));
      // Hold the model's fold at its first statement: the follower's passes share it (WriteModel.catchUp).
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const reading = new Promise<void>((r) => (entered = r));
      const held = {
        query: async (text: string, values: unknown[]) => {
          entered();
          await gate;
          return stage.db.pool.query(text, values);
        },
      } as unknown as Queryable;
      for (;;) {
        const pass = model.catchUp(held);
        pass.catch(() => undefined);
        if (await Promise.race([reading.then(() => true), pass.then(() => false, () => false)])) break;
      }
      // February and March come in; February is archived (January with it) before the fold reads on.
      await seedMonth(stage.db.pool, '2026-02', 2000, PER_MONTH);
      await seedMonth(stage.db.pool, '2026-03', 3000, PER_MONTH);
      await snapshotAtHead(stage.db.pool, foldFingerprint());
      await archive(stage.db, '2026-03', dir);
      release();
      await waitFor(() => refusals.length > 0, { timeoutMs: 60_000, what: "the standby's refusal" });
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toBeInstanceOf(RefusedError);
      expect(refusals[0]!.message).toBe(
        `the standby's write model (following the log at position ${PER_MONTH}) reads the log from position ${PER_MONTH}, but positions up to ${2 * PER_MONTH} are archived (2026-02); ` +
          `restore it first: msgx restore ${path.join(dir, 'msgx-history-2026-02.sha256')}`,
      );
      expect(model.position).toBe(String(PER_MONTH));
    } finally {
      await follower.stop();
    }
  });
});
