import { beforeAll, expect, it } from 'vitest';
import { findHeads, stillFront } from '../../src/write/pump/findHeads.ts';
import { fileDatabase } from '../support/fileDatabase.ts';

const db = fileDatabase('findheads');

beforeAll(async () => {
  // Three unfinished messages of 100, 300 and 100 bytes, and a finished one before them.
  await db.pool.query(
    `INSERT INTO inbox_message (msg_id, source, received_at, ingested_at, raw_xml)
     SELECT id, 'CMINMSGS', now(), now(), repeat('x', len) FROM unnest('{1,2,3,4}'::bigint[], '{50,100,300,100}'::int[]) AS t(id, len)`,
  );
  await db.pool.query(
    `INSERT INTO proc_state (msg_id, state, created_at, updated_at)
     SELECT id, st, now(), now() FROM unnest('{1,2,3,4}'::bigint[], '{SUCCEEDED,PENDING,PENDING,FAILED}'::text[]) AS t(id, st)`,
  );
});

const ids = async (limit: number, maxBytes?: number) => (await findHeads(db.pool, limit, maxBytes)).map((h) => h.msgId);

it('returns the unfinished heads in id order, at most `limit`', async () => {
  expect(await ids(500)).toEqual(['2', '3', '4']);
  expect(await ids(2)).toEqual(['2', '3']);
});

it('loads only as much XML as maxBytes allows, and always the first head', async () => {
  expect(await ids(500, 400)).toEqual(['2', '3']); // 100 + 300 reach 400: the third does not start below it
  expect(await ids(500, 401)).toEqual(['2', '3', '4']);
  expect(await ids(500, 1)).toEqual(['2']); // a head bigger than the budget still comes alone
});

it('reads only ids above `after` (the next batch, read while the last group of one commits)', async () => {
  expect((await findHeads(db.pool, 500, undefined, '2')).map((h) => h.msgId)).toEqual(['3', '4']);
  expect(await findHeads(db.pool, 500, undefined, '4')).toEqual([]);
});

it('stillFront: the heads are still the front of the FIFO while the log stays put, nothing smaller is unfinished and no gap opened below their last', async () => {
  const all = await findHeads(db.pool, 500);
  const later = await findHeads(db.pool, 500, undefined, '2');
  const { rows } = await db.pool.query<{ p: string }>('SELECT last_position::text AS p FROM pipeline_lock WHERE id = 1');
  const position = rows[0]!.p;
  expect(await stillFront(db.pool, all, position)).toBe(true);
  expect(await stillFront(db.pool, later, position)).toBe(false); // message 2 is unfinished and smaller
  expect(await stillFront(db.pool, all, String(BigInt(position) + 1n))).toBe(false); // the log moved
  expect(await stillFront(db.pool, [], position)).toBe(false);
  await db.pool.query(`INSERT INTO inbox_gap (source, gap_id, opened_at) VALUES ('CMINMSGS', 4, now())`);
  try {
    expect(await stillFront(db.pool, all, position)).toBe(false); // message 4 lies at an open gap now
    expect(await stillFront(db.pool, all.slice(0, 2), position)).toBe(true);
  } finally {
    await db.pool.query(`DELETE FROM inbox_gap WHERE gap_id = 4`);
  }
});
