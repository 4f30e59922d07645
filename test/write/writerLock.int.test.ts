import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock, systemClock, type Clock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { pipelineStatus } from '../../src/readModel/pipelineStatus.ts';
import { createWriterLock, STANDBY_RETRY_MS, WriterLockHeldError, type WriterLock } from '../../src/write/writerLock.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { runMsgx } from '../support/msgxProcess.ts';
import { waitFor } from '../support/waitFor.ts';

let db: TestDatabase;
let my: TestMailbox;
const locks: WriterLock[] = [];

beforeAll(async () => {
  [db, my] = await Promise.all([createTestDatabase('writerlock'), createTestMailbox('writerlock')]);
});
afterAll(async () => {
  for (const l of locks) await l.stop();
  await Promise.all([db?.drop(), my?.drop()]);
});

function lock(standby: boolean, onLost: (err: Error) => void = () => undefined, clock: Clock = systemClock): WriterLock {
  const l = createWriterLock({ url: db.url, standby, clock, log: silentLogger, onLost });
  locks.push(l);
  return l;
}

describe('single writer (PostgreSQL advisory lock)', () => {
  it('a second writer refuses with a message naming the holder; a standby takes over at its next try', async () => {
    const first = lock(false);
    await first.start();
    expect(first.held()).toBe(true);

    const second = lock(false);
    const refused = await second.start().then(() => null, (err: unknown) => err);
    expect(refused).toBeInstanceOf(WriterLockHeldError);
    expect((refused as Error).message).toMatch(/another msgx writer is running \(database backend pid \d+/);
    expect(second.held()).toBe(false);

    // The standby retries on its clock: it tries, fails while the first holds the lock, sleeps again.
    const clock = new FakeClock();
    const standby = lock(true, () => undefined, clock);
    let tookOver = false;
    const waiting = standby.start().then(() => (tookOver = true));
    // the status (msgx status, the console) counts the standby while it waits, and not after
    const standbys = async () => (await pipelineStatus(db.pool, { now: new Date(), tz: 'UTC' })).writer.standbys;
    await waitFor(async () => (await standbys()) === 1, { what: 'the standby counted in the status' });
    for (let i = 0; i < 3; i++) {
      await waitFor(() => clock.pendingSleepers === 1, { what: 'standby asleep' });
      clock.advance(STANDBY_RETRY_MS);
      await waitFor(() => clock.pendingSleepers === 1 || tookOver, { what: 'standby retried' });
      expect(tookOver).toBe(false);
    }
    await first.stop();
    clock.advance(STANDBY_RETRY_MS);
    await waiting;
    expect(standby.held()).toBe(true);
    expect(await standbys()).toBe(0);
    expect((await pipelineStatus(db.pool, { now: new Date(), tz: 'UTC' })).writer.lockHeld).toBe(true);
  });

  it('a holder whose lock connection dies is told to stop writing', async () => {
    const lost: Error[] = [];
    const l = lock(true, (err) => lost.push(err));
    // the standby of the previous test may still hold it: wait for our turn
    for (const other of locks.filter((x) => x !== l)) await other.stop();
    await l.start();
    await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7735002 AND granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    await waitFor(() => lost.length > 0, { what: 'onLost' });
    expect(l.held()).toBe(false);
    await l.stop();
  });

  it('`msgx start` refuses the writer role while another writer holds the lock', async () => {
    const holder = lock(false);
    await holder.start();
    const { code, stderr } = await runMsgx(['start', '--role', 'writer'], {
      MSGX_DATABASE_URL: db.url, MSGX_MAILBOX_MYSQL_URL: my.url, MSGX_HTTP_PORT: '0', MSGX_HTTP_HOST: '127.0.0.1', MSGX_LOG_LEVEL: 'silent',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('another msgx writer is running');
    expect(stderr).toContain('--standby');
    await holder.stop();
  });
});
