import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyIn, copyText } from '../../src/platform/copyIn.ts';
import type { ColumnSpec } from '../../src/platform/sqlBatch.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', type: 'bigint' },
  { name: 'note', type: 'text' },
  { name: 'doc', type: 'json' },
];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('copyin');
  await db.pool.query('CREATE TABLE copy_a (id bigint PRIMARY KEY, note text, doc json)');
  await db.pool.query('CREATE TABLE copy_b (id bigint REFERENCES copy_a (id), note text, doc json)');
});
afterAll(async () => db?.drop());

describe('copyIn', () => {
  it('copies several tables in order as one query, the values as the text format says', async () => {
    const c = await db.pool.connect();
    try {
      const doc = JSON.stringify({ s: 'a "quoted" \\ back\nslash', n: [1, 2] });
      const rows = await copyIn(c, [
        { target: 'copy_a (id, note, doc)', data: copyText([['1', 'tab\there', doc], ['2', null, null]], COLUMNS) },
        { target: 'copy_b (id, note, doc)', data: copyText([['1', '', '[]']], COLUMNS) }, // its foreign key finds copy_a's row
      ]);
      expect(rows).toBe(3);
      const a = await c.query<{ id: string; note: string | null; doc: string | null }>('SELECT id, note, doc::text AS doc FROM copy_a ORDER BY id');
      expect(a.rows).toEqual([{ id: '1', note: 'tab\there', doc }, { id: '2', note: null, doc: null }]);
      const b = await c.query<{ note: string }>('SELECT note FROM copy_b');
      expect(b.rows).toEqual([{ note: '' }]);
    } finally {
      c.release();
    }
  });

  it('rejects with the server error and leaves the connection usable', async () => {
    const c = await db.pool.connect();
    try {
      await expect(copyIn(c, [{ target: 'copy_a (id, note, doc)', data: copyText([['1', 'again', null]], COLUMNS) }])).rejects.toThrow(/duplicate key/);
      await expect(copyIn(c, [{ target: 'copy_b (id, note, doc)', data: 'x\t\\N\t\\N\n' }])).rejects.toThrow(/invalid input syntax/);
      expect((await c.query<{ n: number }>('SELECT count(*)::int AS n FROM copy_a')).rows[0]!.n).toBe(2);
    } finally {
      c.release();
    }
  });
});
