import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMysqlMailbox } from '../../src/platform/mailbox/mysqlMailbox.ts';
import { createPgMailbox } from '../../src/platform/mailbox/pgMailbox.ts';
import type { Mailbox } from '../../src/platform/mailbox/port.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';

const TZ = 'Asia/Shanghai';

interface Harness {
  mailbox: Mailbox;
  /** status/processed of one CMINMSGS row, read straight from the store */
  inboxRow(id: string): Promise<{ status: string | null; processed: string | null }>;
  outboxRows(): Promise<{ xml: string; routing: string; inserted: string }[]>;
  /** The mailbox server's NOW(), as CMINMSGS holds times (airport local, 'YYYY-MM-DD HH:MM:SS'). */
  serverNow(): Promise<string>;
}

let pgDb: TestDatabase;
let my: TestMailbox;

const adapters: [string, () => Promise<Harness>][] = [
  [
    'postgres emulation',
    async () => ({
      mailbox: createPgMailbox(pgDb.pool, TZ),
      inboxRow: async (id) =>
        (
          await pgDb.pool.query(
            `SELECT cminmsgs_status AS status, to_char(cminmsgs_date_processed, 'YYYY-MM-DD HH24:MI:SS') AS processed
               FROM mailbox.cminmsgs WHERE cminmsgs_id = $1`,
            [id],
          )
        ).rows[0],
      outboxRows: async () =>
        (
          await pgDb.pool.query(
            `SELECT coutmsgs_clob_msg AS xml, routingid AS routing, to_char(coutmsgs_date_inserted, 'YYYY-MM-DD HH24:MI:SS') AS inserted
               FROM mailbox.coutmsgs ORDER BY coutmsgs_id`,
          )
        ).rows,
      serverNow: async () =>
        (await pgDb.pool.query(`SELECT to_char(now() AT TIME ZONE $1, 'YYYY-MM-DD HH24:MI:SS') AS now`, [TZ])).rows[0].now,
    }),
  ],
  [
    'mysql (MariaDB)',
    async () => ({
      mailbox: createMysqlMailbox(my.url, TZ),
      inboxRow: async (id) => {
        const [rows] = await my.pool.query(
          'SELECT CMINMSGS_STATUS AS status, CMINMSGS_DATE_PROCESSED AS processed FROM CMINMSGS WHERE CMINMSGS_ID = ?',
          [id],
        );
        return (rows as { status: string | null; processed: string | null }[])[0]!;
      },
      outboxRows: async () => {
        const [rows] = await my.pool.query(
          'SELECT COUTMSGS_CLOB_MSG AS xml, ROUTINGID AS routing, COUTMSGS_DATE_INSERTED AS inserted FROM COUTMSGS ORDER BY COUTMSGS_ID',
        );
        return rows as { xml: string; routing: string; inserted: string }[];
      },
      serverNow: async () => {
        const [rows] = await my.pool.query("SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s') AS now");
        return (rows as { now: string }[])[0]!.now;
      },
    }),
  ],
];

beforeAll(async () => {
  [pgDb, my] = await Promise.all([createTestDatabase('mailbox'), createTestMailbox('mailbox')]);
});
afterAll(async () => {
  await Promise.all([pgDb?.drop(), my?.drop()]);
});

describe.each(adapters)('mailbox adapter: %s', (_name, make) => {
  let h: Harness;
  beforeAll(async () => {
    h = await make();
  });
  afterAll(async () => h.mailbox.close());

  it('reads inbound rows after a watermark, in id order, limited, with CJK text intact', async () => {
    const received = new Date('2025-03-14T01:30:00Z');
    const ids: string[] = [];
    for (const body of ['<MSG>一</MSG>', '<MSG>二</MSG>', '<MSG>三</MSG>']) ids.push(await h.mailbox.insertInbound(body, received));
    expect(ids.map(BigInt)).toEqual([...ids.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    const first = await h.mailbox.readAfter('0', 2);
    expect(first.map((r) => r.xml)).toEqual(['<MSG>一</MSG>', '<MSG>二</MSG>']);
    expect(first[0]!.receivedAt?.toISOString()).toBe(received.toISOString());
    const rest = await h.mailbox.readAfter(first[1]!.id, 10);
    expect(rest.map((r) => r.id)).toEqual([ids[2]]);
    expect((await h.mailbox.readIds([ids[0]!, ids[2]!, '999999'])).map((r) => r.id)).toEqual([ids[0], ids[2]]);
    expect(await h.mailbox.readIds([])).toEqual([]);
  });

  it('readBatch: rows after a watermark as the prefix that fits the byte budget (UTF-8 bytes), the first row always, the window counted', async () => {
    const received = new Date('2025-03-14T01:30:00Z');
    const start = (await h.mailbox.readAfter('0', 1_000)).at(-1)?.id ?? '0';
    // small rows (one with CJK: 3 bytes a character) and one of 9000 bytes
    const bodies = ['<MSG>a</MSG>'.slice(0, 9), '<M>一二</M>'.slice(0, 9), `<M>${'x'.repeat(8993)}</M>`, '<M>abc</M>'];
    const ids: string[] = [];
    for (const b of bodies) ids.push(await h.mailbox.insertInbound(b, received));
    const bytes = bodies.map((b) => Buffer.byteLength(b));

    const all = await h.mailbox.readBatch(start, 10, 1 << 20, 0);
    expect(all.rows.map((r) => r.id)).toEqual(ids);
    expect(all.rows.map((r) => r.xml)).toEqual(bodies);
    expect(all.rows[0]!.receivedAt?.toISOString()).toBe(received.toISOString());
    expect(all).toMatchObject({ bytes: bytes.reduce((a, b) => a + b, 0), scanned: 4 });

    // The limit window: 2 of 4, the window full.
    expect(await h.mailbox.readBatch(start, 2, 1 << 20, 0)).toMatchObject({ bytes: bytes[0]! + bytes[1]!, scanned: 2 });
    // The budget cuts before the large row (scanned > rows: cut); that row then goes alone.
    const cut = await h.mailbox.readBatch(start, 10, 1000, 0);
    expect([cut.rows.map((r) => r.id), cut.scanned]).toEqual([[ids[0], ids[1]], 4]);
    const alone = await h.mailbox.readBatch(ids[1]!, 10, 1000, 0);
    expect([alone.rows.map((r) => r.id), alone.bytes, alone.scanned]).toEqual([[ids[2]], bytes[2], 2]);
    // With bytes spent before (gap rows), the first row is no longer free.
    expect((await h.mailbox.readBatch(ids[1]!, 10, 1000, 500)).rows).toEqual([]);
    expect((await h.mailbox.readBatch(ids[1]!, 10, 1000, 500)).scanned).toBe(-1);
    expect((await h.mailbox.readBatch(start, 10, 1000, 1000 - bytes[0]!)).rows.map((r) => r.id)).toEqual([ids[0]]);
    // Nothing after the last row.
    expect(await h.mailbox.readBatch(ids[3]!, 10, 1000, 0)).toEqual({ rows: [], bytes: 0, scanned: 0 });
  });

  it("backfills status and the processed time from the mailbox server's NOW(), idempotently", async () => {
    const id = await h.mailbox.insertInbound('<MSG/>', new Date());
    const at = new Date('2025-03-14T02:00:05Z');
    await h.mailbox.backfill([{ id, status: 'SKIPPED', processedAt: at }]);
    await h.mailbox.backfill([{ id, status: 'PARKED', processedAt: at }]);
    const row = await h.inboxRow(id);
    const now = await h.serverNow();
    expect(row.status).toBe('PARKED');
    // Not the decision's recorded time: the server's own clock, within a minute of its NOW().
    const asMs = (t: string) => Date.parse(`${String(t).replace(' ', 'T')}Z`);
    expect(Math.abs(asMs(row.processed!) - asMs(now))).toBeLessThan(60_000);
  });

  it('backfills a batch of every status in one call, each row with its own status; rows outside the batch are left alone', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await h.mailbox.insertInbound(`<MSG>${i}</MSG>`, new Date()));
    const at = new Date('2025-03-14T02:00:05Z');
    const statuses = ['PARKED', 'PROCESSED', 'DEAD', 'PROCESSED', 'SKIPPED'] as const;
    await h.mailbox.backfill(statuses.map((status, i) => ({ id: ids[i]!, status, processedAt: at })));
    // A batch without some statuses (their lists are empty).
    await h.mailbox.backfill([{ id: ids[2]!, status: 'DEAD', processedAt: at }]);
    const rows = await Promise.all(ids.map((id) => h.inboxRow(id)));
    expect(rows.map((r) => r.status)).toEqual([...statuses, null]);
    expect(rows.map((r) => r.processed !== null)).toEqual([true, true, true, true, true, false]);
  });

  it('inserts outbound rows with ROUTINGID', async () => {
    const id = await h.mailbox.insertOutbound({ xml: '<MSG><RQFD/></MSG>', routingId: 'OMMS01', insertedAt: new Date('2025-03-14T00:00:00Z') });
    expect(Number(id)).toBeGreaterThan(0);
    expect(await h.outboxRows()).toEqual([{ xml: '<MSG><RQFD/></MSG>', routing: 'OMMS01', inserted: '2025-03-14 08:00:00' }]);
  });

  it('ping makes a real round trip', async () => {
    await expect(h.mailbox.ping()).resolves.toBeUndefined();
  });
});
