/**
 * Ingest bounds (docs/security.md): a byte budget per poll (one huge row still goes through), the late-
 * commit watch over every expired gap (paged), id jumps recorded as an auditable range, and a
 * stalled ingest reported by its readiness check.
 */
import type mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import type { Mailbox } from '../../src/platform/mailbox/port.ts';
import { createMysqlMailbox } from '../../src/platform/mailbox/mysqlMailbox.ts';
import { createIngest, STALL_FAILURES } from '../../src/write/ingest/ingestService.ts';
import { LATE_WATCH_PAGE, MAX_GAP_RUN } from '../../src/write/ingest/pollOnce.ts';
import { waitFor } from '../support/waitFor.ts';
import { adft, estt } from './support/messages.ts';
import { insertCminmsgs, writeStage } from './support/writeHarness.ts';

const t = writeStage('ingestlimits', { afterEachTest: (db) => db.pool.query('TRUNCATE inbox_id_range') });

async function start(clock: FakeClock, env: Record<string, string> = {}) {
  return t.start({ clock, env }, { ingest: false, backfill: false });
}

const copiedIds = async () =>
  (await t.db.pool.query<{ msg_id: string }>('SELECT msg_id FROM inbox_message ORDER BY msg_id')).rows.map((r) => r.msg_id);

/** A message of about `bytes` bytes (a remark pads it). */
const sized = (seqn: number, bytes: number) => {
  const xml = adft(seqn, String(884000 + seqn));
  return xml.replace('</MSG>', `<!--${'x'.repeat(Math.max(0, bytes - xml.length - 7))}--></MSG>`);
};

describe('ingest limits (real MariaDB)', () => {
  it('loads at most MSGX_INGEST_MAX_BYTES of XML per poll, and a single larger row alone', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) ids.push(await insertCminmsgs(t.my, sized(i, 1500)));
    ids.push(await insertCminmsgs(t.my, sized(5, 9000))); // larger than the whole budget
    ids.push(await insertCminmsgs(t.my, sized(6, 1500)));
    const w = await start(clock, { MSGX_INGEST_MAX_BYTES: '4000' });

    const polls = [];
    for (let i = 0; i < 4; i++) polls.push(await w.ingest.pollOnce());
    expect(polls.map((p) => [p.read, p.more])).toEqual([
      [2, true], // 1500 + 1500 fit, a third would not
      [2, true],
      [1, true], // the 9000-byte row alone
      [1, false],
    ]);
    expect(Math.max(...polls.filter((p) => p.read > 1).map((p) => p.bytes))).toBeLessThanOrEqual(4000);
    expect(await copiedIds()).toEqual(ids);
  });

  it(`watches every expired gap for a late commit, paging ${LATE_WATCH_PAGE} per poll`, async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const before = await insertCminmsgs(t.my, adft(1, '884101'));
    const w = await start(clock, { MSGX_GAP_TIMEOUT_MS: '1000' });
    await w.ingest.pollOnce();

    const count = LATE_WATCH_PAGE + 200;
    const held: mysql.PoolConnection = await t.my.pool.getConnection();
    let late: string[];
    try {
      await held.beginTransaction();
      const xml = Array.from({ length: count }, (_, i) => estt(10 + i, '884101', '14MAR250812'));
      const [res] = await held.query<mysql.ResultSetHeader>(
        'INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES ' + xml.map(() => '(?, NOW())').join(','),
        xml,
      );
      late = Array.from({ length: count }, (_, i) => String(BigInt(res.insertId) + BigInt(i)));
      const after = await insertCminmsgs(t.my, adft(5000, '884102'));
      expect(await w.ingest.pollOnce()).toMatchObject({ gapsOpened: count });
      clock.advance(1001);
      expect(await w.ingest.pollOnce()).toMatchObject({ gapsExpired: count });
      await held.commit();
      expect(await copiedIds()).toEqual([before, after]);
    } finally {
      held.release();
    }
    expect((await w.ingest.pollOnce()).copied).toBe(LATE_WATCH_PAGE);
    expect((await w.ingest.pollOnce()).copied).toBe(200);
    expect((await copiedIds()).length).toBe(count + 2);
    const { rows } = await t.db.pool.query(`SELECT count(*)::int AS n FROM inbox_gap WHERE appeared_at IS NOT NULL`);
    expect(rows[0].n).toBe(count);
    expect(late.length).toBe(count);
  });

  it('records a run of more than MAX_GAP_RUN missing ids as one auditable range', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const first = await insertCminmsgs(t.my, adft(1, '884201'));
    const w = await start(clock);
    await w.ingest.pollOnce();
    await t.my.pool.query(`ALTER TABLE CMINMSGS AUTO_INCREMENT = ${Number(first) + MAX_GAP_RUN + 500}`);
    const next = await insertCminmsgs(t.my, estt(2, '884201', '14MAR250812'));
    expect(await w.ingest.pollOnce()).toMatchObject({ read: 1, gapsOpened: 0 });
    const { rows } = await t.db.pool.query('SELECT after_id, next_id, missing FROM inbox_id_range');
    expect(rows).toEqual([{ after_id: first, next_id: next, missing: String(BigInt(next) - BigInt(first) - 1n) }]);
  });

  it('turns its readiness check not ready, with the reason, when polls keep failing', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    await insertCminmsgs(t.my, adft(1, '884301'));
    const real = createMysqlMailbox(t.my.url, 'Asia/Shanghai');
    const poison = async (): Promise<never> => {
      throw new RangeError('Invalid string length');
    };
    const poisoned: Mailbox = { ...real, readIds: poison, readBatch: poison };
    const ingest = createIngest(t.runtime({ clock, mailbox: poisoned }));
    await expect(ingest.readiness.check()).resolves.toBeUndefined();
    for (let i = 0; i < STALL_FAILURES; i++) await expect(ingest.pollOnce()).rejects.toThrow(RangeError);
    await expect(ingest.readiness.check()).rejects.toThrow(/ingest stalled: 3 polls failed in a row; last error: RangeError: Invalid string length/);
  });

  it('turns its readiness check not ready when no poll completes for MSGX_INGEST_STALL_MS', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const real = createMysqlMailbox(t.my.url, 'Asia/Shanghai');
    let release: (() => void) | undefined;
    const hanging: Mailbox = { ...real, readBatch: () => new Promise((resolve) => (release = () => resolve({ rows: [], bytes: 0, scanned: 0 }))) };
    const ingest = createIngest(t.runtime({ clock, mailbox: hanging, env: { MSGX_INGEST_STALL_MS: '5000' } }));
    await ingest.start();
    try {
      await waitFor(() => release !== undefined, { what: 'the poll hanging in the mailbox' });
      await expect(ingest.readiness.check()).resolves.toBeUndefined();
      clock.advance(5001);
      await expect(ingest.readiness.check()).rejects.toThrow(/ingest stalled: no poll completed for 5 s/);
    } finally {
      const stopping = ingest.stop();
      release?.();
      await stopping;
    }
  });
});
