import { afterAll, beforeAll, expect, it } from 'vitest';
import { findHeads } from '../../src/write/pump/findHeads.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('findheads');
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
afterAll(async () => db?.drop());

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
