import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMysqlMailbox } from '../../src/platform/mailbox/mysqlMailbox.ts';
import type { Mailbox } from '../../src/platform/mailbox/port.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import { MALFORMED_XML, adft, estt } from './support/messages.ts';
import { generateTraffic } from './support/traffic.ts';
import { insertCminmsgs, insertCminmsgsBulk, procStates, startWriter, testRuntime, unfinished } from './support/writeHarness.ts';

let db: TestDatabase;
let my: TestMailbox;
const dropAfter: { drop(): Promise<void> }[] = [];

beforeAll(async () => {
  [db, my] = await Promise.all([createTestDatabase('backfill'), createTestMailbox('backfill')]);
});
afterAll(async () => {
  await Promise.all([db?.drop(), my?.drop(), ...dropAfter.map((s) => s.drop())]);
});

/** The real MariaDB mailbox whose write-back fails while `down` (a mailbox outage). */
function flakyMailbox(real: Mailbox) {
  const state = { down: true, calls: 0 };
  const mailbox: Mailbox = {
    ...real,
    async backfill(items) {
      state.calls++;
      if (state.down) throw new Error('connect ECONNREFUSED (mailbox down)');
      return real.backfill(items);
    },
  };
  return { mailbox, state };
}

async function cminStatus(): Promise<(string | null)[]> {
  const [rows] = await my.pool.query('SELECT CMINMSGS_STATUS AS s FROM CMINMSGS ORDER BY CMINMSGS_ID');
  return (rows as { s: string | null }[]).map((r) => r.s);
}

describe('CMINMSGS backfill', () => {
  it('a mailbox outage never blocks the pump; pending write-backs are retried and completed after it', async () => {
    const real = createMysqlMailbox(my.url, 'Asia/Shanghai');
    const { mailbox, state } = flakyMailbox(real);
    await insertCminmsgs(my, adft(1, '884001'));
    await insertCminmsgs(my, MALFORMED_XML);
    await insertCminmsgs(my, estt(2, '884001', '14MAR250812'));
    await insertCminmsgs(my, estt(2, '884001', '14MAR250815'));
    const rt = testRuntime(db, my, { mailbox, env: { MSGX_BACKOFF_MS: '10', MSGX_BACKOFF_CAP_MS: '50' } });
    const w = await startWriter(rt);
    try {
      await waitFor(async () => (await procStates(db)).length === 4 && (await unfinished(db)) === 0, { what: 'all decided during the outage' });
      await waitFor(async () => (await db.pool.query('SELECT 1 FROM proc_state WHERE backfill_attempts >= 2')).rowCount === 4, { what: 'retries' });
      const during = await db.pool.query('SELECT backfill_state, backfill_error FROM proc_state ORDER BY msg_id');
      expect(during.rows.every((r) => r.backfill_state === 'PENDING' && String(r.backfill_error).includes('mailbox down'))).toBe(true);
      expect(await cminStatus()).toEqual([null, null, null, null]);

      state.down = false;
      await waitFor(async () => (await procStates(db)).every((p) => p.backfill_state === 'DONE'), { what: 'backfill after the outage' });
      expect(await cminStatus()).toEqual(['PROCESSED', 'DEAD', 'PROCESSED', 'SKIPPED']);
      const [rows] = await my.pool.query('SELECT COUNT(*) AS n FROM CMINMSGS WHERE CMINMSGS_DATE_PROCESSED IS NULL');
      expect(Number((rows as { n: number }[])[0]!.n)).toBe(0);
    } finally {
      await w.stop();
      await rt.close();
    }
  });

  it('a restart picks up write-backs left pending (the scanner compensates)', async () => {
    await db.pool.query("UPDATE proc_state SET backfill_state = 'PENDING', backfill_next_at = NULL");
    await my.pool.query('UPDATE CMINMSGS SET CMINMSGS_STATUS = NULL, CMINMSGS_DATE_PROCESSED = NULL');
    const rt = testRuntime(db, my);
    const w = await startWriter(rt, { ingest: false });
    try {
      await waitFor(async () => (await procStates(db)).every((p) => p.backfill_state === 'DONE'), { what: 'scanner' });
      expect(await cminStatus()).toEqual(['PROCESSED', 'DEAD', 'PROCESSED', 'SKIPPED']);
    } finally {
      await w.stop();
      await rt.close();
    }
  });

  it('a stop ends after the chunks in flight, however long the backlog; the rest stays pending and the next start writes it back', { timeout: 120_000 }, async () => {
    // Stores of its own: the messages of the tests above stay out of the counts.
    const [db, my] = await Promise.all([createTestDatabase('backfillstop'), createTestMailbox('backfillstop')]);
    dropAfter.push(db, my);
    await insertCminmsgsBulk(my, generateTraffic(1200));
    // Decide everything with no write-back running: a backlog of 1,200 write-backs.
    const rt = testRuntime(db, my);
    const w = await startWriter(rt, { backfill: false });
    await waitFor(async () => (await procStates(db)).length === 1200 && (await unfinished(db)) === 0, { timeoutMs: 60_000, what: 'all decided' });
    await w.stop();
    const pending = async () => Number((await db.pool.query<{ n: string }>("SELECT count(*) AS n FROM proc_state WHERE backfill_state = 'PENDING'")).rows[0]!.n);
    expect(await pending()).toBe(1200);

    // The first batch's write to the mailbox waits until the stop has been asked for.
    const real = createMysqlMailbox(my.url, 'Asia/Shanghai');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let batches = 0;
    const gated: Mailbox = { ...real, async backfill(items) { batches++; await gate; return real.backfill(items); } };
    const rt2 = testRuntime(db, my, { mailbox: gated });
    const w2 = await startWriter(rt2, { ingest: false });
    await waitFor(() => batches >= 1, { what: 'the first write-back batch in flight' });
    const stopped = w2.stop();
    release();
    await stopped;
    await rt2.close();
    // The chunks in flight when the stop came (at most two) are written; no chunk starts after it.
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(2);
    expect(await pending()).toBe(1200 - 500 * batches);

    const rt3 = testRuntime(db, my);
    const w3 = await startWriter(rt3, { ingest: false });
    try {
      await waitFor(async () => (await pending()) === 0, { timeoutMs: 60_000, what: 'the rest written back by the next start' });
      const [rows] = await my.pool.query('SELECT COUNT(*) AS n FROM CMINMSGS WHERE CMINMSGS_DATE_PROCESSED IS NULL');
      expect(Number((rows as { n: number }[])[0]!.n)).toBe(0);
    } finally {
      await w3.stop();
      await rt3.close();
    }
  });
});
