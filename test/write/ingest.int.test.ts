import type mysql from 'mysql2/promise';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { MAX_GAP_RUN } from '../../src/write/ingest/pollOnce.ts';
import { adft, estt } from './support/messages.ts';
import { decisions, insertCminmsgs, procStates, writeStage } from './support/writeHarness.ts';

const t = writeStage('ingest');
let held: mysql.PoolConnection | undefined;
// Registered after the stage's: runs before it stops the writer (vitest runs after-hooks last-in first).
afterEach(async () => {
  await held?.rollback().catch(() => undefined);
  held?.release();
  held = undefined;
});

/** Insert in a MySQL transaction that stays open: its id is taken but invisible until commit. */
async function holdInsert(xml: string): Promise<{ id: string; commit: () => Promise<void> }> {
  const conn = await t.my.pool.getConnection();
  held = conn;
  await conn.beginTransaction();
  const [res] = await conn.execute('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, NOW())', [xml]);
  return {
    id: String((res as { insertId: number }).insertId),
    commit: async () => {
      await conn.commit();
      conn.release();
      held = undefined;
    },
  };
}

async function gaps() {
  const { rows } = await t.db.pool.query<{ gap_id: string; closed_by: string | null; appeared: boolean }>(
    'SELECT gap_id, closed_by, appeared_at IS NOT NULL AS appeared FROM inbox_gap ORDER BY gap_id',
  );
  return rows;
}

async function start(clock: FakeClock, env: Record<string, string> = {}) {
  return t.start({ clock, env }, { ingest: false });
}

describe('ingest gap safety (real MariaDB, a transaction held open)', () => {
  it('a larger id that commits first waits until the smaller one commits', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const a = await insertCminmsgs(t.my, adft(1, '883001'));
    const b = await holdInsert(estt(2, '883001', '14MAR250812'));
    const c = await insertCminmsgs(t.my, estt(3, '883001', '14MAR250830'));
    expect(BigInt(a) < BigInt(b.id) && BigInt(b.id) < BigInt(c)).toBe(true);

    const w = await start(clock);
    expect(await w.ingest.pollOnce()).toMatchObject({ read: 2, copied: 2, gapsOpened: 1 });
    await w.pump.drained();
    expect(await gaps()).toEqual([{ gap_id: b.id, closed_by: null, appeared: false }]);
    expect((await procStates(t.db)).map((p) => [p.msg_id, p.state])).toEqual([[a, 'SUCCEEDED'], [c, 'PENDING']]);

    // Polling again while the smaller id is still uncommitted changes nothing.
    await w.ingest.pollOnce();
    await w.pump.drained();
    expect((await procStates(t.db)).map((p) => p.state)).toEqual(['SUCCEEDED', 'PENDING']);

    await b.commit();
    expect(await w.ingest.pollOnce()).toMatchObject({ copied: 1, gapsAppeared: 1 });
    await w.pump.drained();
    expect(await gaps()).toEqual([{ gap_id: b.id, closed_by: 'appeared', appeared: true }]);
    expect((await decisions(t.db)).map((d) => d.msg_id)).toEqual([a, b.id, c]);
    // c (08:30) was decided after b (08:12): the later message wins.
    expect(w.model.flights.get('883001')!.estimatedTime).toBe('2025-03-14T00:30:00.000Z');
  });

  it('a gap that stays open past MSGX_GAP_TIMEOUT_MS expires with an audited GapExpired decision; a late row is still ingested', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const a = await insertCminmsgs(t.my, adft(1, '883002'));
    const b = await holdInsert(estt(2, '883002', '14MAR250812'));
    const c = await insertCminmsgs(t.my, estt(3, '883002', '14MAR250830'));
    const w = await start(clock, { MSGX_GAP_TIMEOUT_MS: '60000' });
    await w.ingest.pollOnce();
    clock.advance(59_999);
    expect(await w.ingest.pollOnce()).toMatchObject({ gapsExpired: 0 });
    await w.pump.drained();
    expect((await procStates(t.db)).map((p) => p.state)).toEqual(['SUCCEEDED', 'PENDING']);

    clock.advance(1);
    expect(await w.ingest.pollOnce()).toMatchObject({ gapsExpired: 1 });
    await w.pump.drained();
    expect((await procStates(t.db)).map((p) => p.state)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    const log = await decisions(t.db);
    expect(log.map((d) => `${d.msg_id}:${d.kind}`)).toEqual([`${a}:Applied`, `${b.id}:GapExpired`, `${c}:Applied`]);
    expect(log[1]!.payload).toMatchObject({ source: 'CMINMSGS', gapId: b.id, openedAt: '2025-03-14T00:00:00.000Z', timeoutMs: 60000 });
    expect(await gaps()).toEqual([{ gap_id: b.id, closed_by: 'expired', appeared: false }]);

    // The row commits after all: ingested out of order, never lost — and judged against the flight
    // as it is now: its 08:12 is older than the 08:30 the later message set, so it is not applied.
    await b.commit();
    expect(await w.ingest.pollOnce()).toMatchObject({ copied: 1, gapsExpired: 0 });
    await w.pump.drained();
    expect((await procStates(t.db)).map((p) => [p.msg_id, p.state, p.last_error])).toEqual([
      [a, 'SUCCEEDED', null], [b.id, 'SKIPPED', 'stale'], [c, 'SUCCEEDED', null],
    ]);
    expect(w.model.flights.get('883002')!.estimatedTime).toBe('2025-03-14T00:30:00.000Z');
    expect(await gaps()).toEqual([{ gap_id: b.id, closed_by: 'expired', appeared: true }]);
  });

  it('stores the text of each row as it is in CMINMSGS: quotes, backslashes, escapes, line breaks, CJK, emoji; U+0000 as U+FFFD with the flag', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const odd = ['"quoted" \\ back\\slash \\u0041 \\n \t\r\n 北京首都 ✈️ 😀 \u007f', 'a\u0000b'];
    const xmls = odd.map((text) => adft(1, '883010').replace('<MSG>', `<MSG><!--${text}-->`));
    const ids = [];
    for (const x of xmls) ids.push(await insertCminmsgs(t.my, x));
    const w = await start(clock);
    await w.ingest.pollOnce();
    const { rows } = await t.db.pool.query<{ raw_xml: string; nul_replaced: boolean }>('SELECT raw_xml, nul_replaced FROM inbox_message ORDER BY msg_id');
    expect(rows).toEqual([
      { raw_xml: xmls[0], nul_replaced: false },
      { raw_xml: xmls[1]!.replace('\u0000', '\uFFFD'), nul_replaced: true },
    ]);
    expect(ids).toHaveLength(2);
  });

  it('copying is idempotent: re-reading rows after a crash before the cursor moved never enqueues twice', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const ids = [await insertCminmsgs(t.my, adft(1, '883003')), await insertCminmsgs(t.my, estt(2, '883003', '14MAR250812'))];
    const w = await start(clock);
    await w.ingest.pollOnce();
    await w.pump.drained();
    // As if the cursor update had been lost: the next poll reads the same rows again.
    await t.db.pool.query("UPDATE inbox_cursor SET watermark = 0 WHERE source = 'CMINMSGS'");
    expect(await w.ingest.pollOnce()).toMatchObject({ read: 2, copied: 0 });
    await w.pump.drained();
    expect((await procStates(t.db)).map((p) => [p.msg_id, p.state])).toEqual(ids.map((id) => [id, 'SUCCEEDED']));
    expect((await decisions(t.db)).length).toBe(2);
  });

  it('a fresh cursor treats ids below the first row as history; an id jump is not a gap', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    await t.my.pool.query('ALTER TABLE CMINMSGS AUTO_INCREMENT = 100');
    const first = await insertCminmsgs(t.my, adft(1, '883004'));
    await t.my.pool.query(`ALTER TABLE CMINMSGS AUTO_INCREMENT = ${100 + MAX_GAP_RUN + 50}`);
    const second = await insertCminmsgs(t.my, estt(2, '883004', '14MAR250812'));
    const w = await start(clock);
    expect(await w.ingest.pollOnce()).toMatchObject({ read: 2, copied: 2, gapsOpened: 0, watermark: second });
    await w.pump.drained();
    expect(await gaps()).toEqual([]);
    expect((await procStates(t.db)).map((p) => [p.msg_id, p.state])).toEqual([[first, 'SUCCEEDED'], [second, 'SUCCEEDED']]);
  });
});
