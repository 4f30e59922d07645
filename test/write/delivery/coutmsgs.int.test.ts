import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../src/platform/clock.ts';
import { createPgMailbox } from '../../../src/platform/mailbox/pgMailbox.ts';
import type { Mailbox, OutboundRow } from '../../../src/platform/mailbox/port.ts';
import type { Dispatcher } from '../../../src/write/delivery/dispatcher.ts';
import { createNdjsonSink } from '../../../src/write/delivery/ndjsonSink.ts';
import { fileDatabase } from '../../support/fileDatabase.ts';
import { waitFor } from '../../support/waitFor.ts';
import { emptyOutbox, type OutboxWriter, rowStates, startDispatcher, testConfig } from './outboxFixture.ts';

const TZ = 'Asia/Shanghai';
const db = fileDatabase('delivery_cout');
let dir: string;
let clock: FakeClock;
let out: OutboxWriter;
let dispatcher: Dispatcher | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-cout-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  ({ clock, out } = await emptyOutbox(db.pool, '2025-03-14T02:00:00Z'));
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
});

async function start(mailbox: Mailbox): Promise<void> {
  dispatcher = await startDispatcher({ pool: db.pool, url: db.url, mailbox, sink: createNdjsonSink(dir), clock, cfg: testConfig(), });
}

const outbound = async () =>
  (
    await db.pool.query(
      `SELECT coutmsgs_id AS id, coutmsgs_clob_msg AS xml, routingid,
              to_char(coutmsgs_date_inserted, 'YYYY-MM-DD HH24:MI:SS') AS inserted
         FROM mailbox.coutmsgs ORDER BY coutmsgs_id`,
    )
  ).rows;

describe('COUTMSGS delivery', () => {
  it('inserts one outbound row per msg_event row, in order, with the configured ROUTINGID (or the row’s override)', async () => {
    await start(createPgMailbox(db.pool, TZ));
    const ids = await out.insert([
      { target: 'COUTMSGS', payload: { clobMsg: '<MSG>1</MSG>' } },
      { target: 'COUTMSGS', payload: { clobMsg: '<MSG>2</MSG>', routingId: 'OTHER' } },
    ]);
    const states = await waitFor(async () => {
      const s = await rowStates(db.pool, 'COUTMSGS');
      return s.every((r) => r.state === 'SENT') ? s : null;
    });
    const rows = await outbound();
    expect(rows.map((r) => [r.xml, r.routingid, r.inserted])).toEqual([
      ['<MSG>1</MSG>', 'ROUTE-T', '2025-03-14 10:00:00'],
      ['<MSG>2</MSG>', 'OTHER', '2025-03-14 10:00:00'],
    ]);
    expect(states.map((s) => [s.eventId, s.deliveryRef])).toEqual([
      [ids[0], { coutmsgsId: rows[0].id }],
      [ids[1], { coutmsgsId: rows[1].id }],
    ]);
  });

  it('a row that cannot be delivered goes DEAD after MSGX_MAX_ATTEMPTS, keeping its error; the next row follows', async () => {
    await start(createPgMailbox(db.pool, TZ));
    const [bad, good] = await out.insert([
      { target: 'COUTMSGS', payload: { note: 'no clob' } },
      { target: 'COUTMSGS', payload: { clobMsg: '<MSG>after</MSG>' } },
    ]);
    for (const [n, backoff] of [[1, 1000], [2, 2000]] as const) {
      await waitFor(async () => (await rowStates(db.pool, 'COUTMSGS'))[0]?.attempts === n, { what: `attempt ${n}` });
      expect(await outbound()).toEqual([]); // the failing head blocks the row behind it
      clock.advance(backoff);
    }
    const states = await waitFor(async () => {
      const s = await rowStates(db.pool, 'COUTMSGS');
      return s[1]?.state === 'SENT' ? s : null;
    });
    expect(states[0]).toMatchObject({ eventId: bad, state: 'DEAD', attempts: 3, lastError: 'COUTMSGS payload has no clobMsg text' });
    expect(states[1]).toMatchObject({ eventId: good, state: 'SENT' });
    expect((await outbound()).map((r) => r.xml)).toEqual(['<MSG>after</MSG>']);
  });

  it('a mailbox outage keeps the head PENDING past MSGX_MAX_ATTEMPTS (backoff only), then delivers in order', async () => {
    const real = createPgMailbox(db.pool, TZ);
    let down = true;
    const flaky: Mailbox = {
      ...real,
      insertOutbound: (row: OutboundRow) =>
        down ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' })) : real.insertOutbound(row),
    };
    await start(flaky);
    await out.insert([1, 2].map((n) => ({ target: 'COUTMSGS' as const, payload: { clobMsg: `<MSG>${n}</MSG>` } })));
    for (let n = 1; n <= 4; n++) {
      await waitFor(async () => (await rowStates(db.pool, 'COUTMSGS'))[0]?.attempts === n, { what: `attempt ${n}` });
      clock.advance(4000);
    }
    const states = await rowStates(db.pool, 'COUTMSGS');
    expect(states.map((s) => s.state)).toEqual(['PENDING', 'PENDING']);
    expect(states[0]!.lastError).toMatch(/ECONNREFUSED/);
    down = false;
    clock.advance(4000);
    await waitFor(async () => (await rowStates(db.pool, 'COUTMSGS')).every((r) => r.state === 'SENT'), { what: 'all sent' });
    expect((await outbound()).map((r) => r.xml)).toEqual(['<MSG>1</MSG>', '<MSG>2</MSG>']);
  });
});
