import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryFields, copyOut, int8Text, timestampMs, type BinaryFields } from '../../src/platform/copyOut.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('copyout');
});
afterAll(async () => db?.drop());

/** Tuple t of `fields` as [start, end] per field (null for NULL). */
const tupleAt = (fields: BinaryFields, width: number, t: number) =>
  Array.from({ length: width }, (_, f) => (fields.start[t * width + f]! < 0 ? null : [fields.start[t * width + f]!, fields.end[t * width + f]!]));
const text = (data: Buffer, f: number[] | null) => (f ? data.toString('utf8', f[0], f[1]) : null);

describe('copyOut', () => {
  it('reads a binary COPY: bigints past 2^53 and negative, NULLs, UTF-8 text, timestamps before 1970 and to the microsecond', async () => {
    const c = await db.pool.connect();
    try {
      const data = await copyOut(c, `COPY (
        SELECT * FROM (VALUES
          (1::bigint, 'Applied'::text, '2025-03-10 01:02:03.456789+00'::timestamptz),
          (9007199254740993, NULL, '1969-12-31 23:59:59.9996+00'),
          (-9223372036854775808, '首都机场 "T3"', '2000-01-01 00:00:00+00'),
          (-5, repeat('x', 200000), '2262-01-01 00:00:00.001+00')
        ) v(id, note, at)) TO STDOUT (FORMAT binary)`);
      const fields = binaryFields(data, 3);
      const rows = Array.from({ length: fields.tuples }, (_, t) => tupleAt(fields, 3, t)).map((f) => ({ id: int8Text(data, f[0]![0]!), note: text(data, f[1]!), ms: timestampMs(data, f[2]![0]!) }));
      expect(rows).toEqual([
        { id: '1', note: 'Applied', ms: Date.parse('2025-03-10T01:02:03.456Z') },
        { id: '9007199254740993', note: null, ms: Date.parse('1969-12-31T23:59:59.999Z') }, // truncated towards the past, as floor(epoch * 1000)
        { id: '-9223372036854775808', note: '首都机场 "T3"', ms: Date.parse('2000-01-01T00:00:00.000Z') },
        { id: '-5', note: 'x'.repeat(200000), ms: Date.parse('2262-01-01T00:00:00.001Z') },
      ]);
    } finally {
      c.release();
    }
  });

  it('rejects with the server error and leaves the connection usable', async () => {
    const c = await db.pool.connect();
    try {
      await expect(copyOut(c, 'COPY (SELECT 1 / 0) TO STDOUT (FORMAT binary)')).rejects.toThrow(/division by zero/);
      expect((await c.query<{ n: number }>('SELECT 2 AS n')).rows[0]!.n).toBe(2);
      expect(binaryFields(await copyOut(c, 'COPY (SELECT 1 WHERE false) TO STDOUT (FORMAT binary)'), 1).tuples).toBe(0);
    } finally {
      c.release();
    }
  });
});

describe('binaryTuples', () => {
  const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
  const int16 = (n: number) => { const b = Buffer.alloc(2); b.writeInt16BE(n); return b; };
  const int32 = (n: number) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; };
  const tuple = Buffer.concat([int16(1), int32(2), Buffer.from('ab')]);

  it('refuses what is not a whole binary COPY', () => {
    expect(() => binaryFields(Buffer.from('1\tx\n'), 1)).toThrow(/signature/);
    expect(() => binaryFields(Buffer.concat([header, tuple]), 1)).toThrow(/trailer/);
    expect(() => binaryFields(Buffer.concat([header, int16(1), int32(10), Buffer.from('ab')]), 1)).toThrow(/truncated field/);
    expect(() => binaryFields(Buffer.concat([header, int16(1), Buffer.from('ab')]), 1)).toThrow(/truncated tuple/);
    expect(() => binaryFields(Buffer.concat([header, tuple, int16(-1)]), 2)).toThrow(/1 fields, expected 2/);
  });

  it('finds every field of many tuples, NULLs as -1', () => {
    const many = Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? Buffer.concat([int16(2), int32(-1), int32(2), Buffer.from('ab')]) : Buffer.concat([int16(2), int32(1), Buffer.from('x'), int32(0)])));
    const fields = binaryFields(Buffer.concat([header, ...many, int16(-1)]), 2);
    expect(fields.tuples).toBe(1000);
    expect(tupleAt(fields, 2, 0)).toEqual([null, [header.length + 10, header.length + 12]]);
    const second = header.length + 12;
    expect(tupleAt(fields, 2, 1)).toEqual([[second + 6, second + 7], [second + 11, second + 11]]);
    expect(tupleAt(fields, 2, 999)).toEqual([null, [fields.start[1999]!, fields.start[1999]! + 2]]);
  });
});
