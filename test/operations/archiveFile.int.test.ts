/**
 * A month's file (docs/operations.md "Archive a month"): one `to_jsonb(row)` per line, whatever the
 * row holds. The file is written as CSV with a delimiter and a quote that a jsonb text never holds
 * raw, so a message with control characters, quotes, backslashes or line breaks must come back
 * byte for byte.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_TABLES } from '../../src/log/historyMonths.ts';
import { readMonthFile, writeMonthFile } from '../../src/operations/archive/archiveFile.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

const NASTY = [
  '<m a="1">tab\there, CR\r, LF\nand CRLF\r\n</m>',
  `SOH \u0001 STX \u0002 ESC \u001b DEL \u007f "quoted" 'single' back\\slash \\. alone:\n\\.\n`,
  '首都机场 T3 — ✈ 𝄞 (astral)',
  '',
  ',;|\u0001\u0002,"",',
];

describe('a month file', () => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase('archivefile');
    dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-archive-file-'));
    for (const [i, raw] of NASTY.entries()) {
      await db.pool.query(`INSERT INTO inbox_message (msg_id, received_at, ingested_at, type, raw_xml) VALUES ($1, '2020-01-05', '2020-01-05', 'FLOP', $2)`, [
        100 + i,
        raw,
      ]);
    }
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('holds each row as its to_jsonb text, control characters, quotes and line breaks included, in key order', async () => {
    const spec = HISTORY_TABLES[1];
    const file = path.join(dir, 'inbox.ndjson.gz');
    const written = await writeMonthFile(db.pool, spec, 'inbox_message_default', file);
    expect(written).toMatchObject({ rows: NASTY.length, minKey: '100', maxKey: String(100 + NASTY.length - 1) });
    const lines: string[] = [];
    const read = await readMonthFile(file, spec.rowKey, async (batch) => void lines.push(...batch));
    expect(read).toEqual(written);
    const { rows } = await db.pool.query<{ j: string }>('SELECT to_jsonb(t)::text AS j FROM inbox_message t ORDER BY msg_id');
    expect(lines).toEqual(rows.map((r) => r.j));
    expect(lines.map((l) => (JSON.parse(l) as { raw_xml: string }).raw_xml)).toEqual(NASTY);
  });

  it('is read back in batches bounded by lines and by characters, a longer line alone, every line once and in order', async () => {
    const other = await createTestDatabase('archivefilebatches');
    try {
      const sizes = [10, 100_000, 100_000, 10, 10, 200_000, 10, 10, 10, 10, 10];
      for (const [i, n] of sizes.entries()) {
        await other.pool.query(`INSERT INTO inbox_message (msg_id, received_at, ingested_at, type, raw_xml) VALUES ($1, '2020-01-05', '2020-01-05', 'FLOP', $2)`, [
          1 + i,
          'x'.repeat(n),
        ]);
      }
      const spec = HISTORY_TABLES[1];
      const file = path.join(dir, 'batches.ndjson.gz');
      await writeMonthFile(other.pool, spec, 'inbox_message_default', file);
      const batches: string[][] = [];
      const bounds = { rows: 4, chars: 150_000 };
      await readMonthFile(file, spec.rowKey, async (lines) => void batches.push([...lines]), undefined, bounds);
      for (const b of batches) {
        expect(b.length).toBeLessThanOrEqual(bounds.rows);
        if (b.length > 1) expect(b.reduce((n, l) => n + l.length, 0)).toBeLessThanOrEqual(bounds.chars);
      }
      expect(batches.map((b) => b.map((l) => (JSON.parse(l) as { raw_xml: string }).raw_xml.length))).toEqual([
        [10, 100_000], [100_000, 10, 10], [200_000], [10, 10, 10, 10], [10],
      ]);
    } finally {
      await other.drop();
    }
  });

  it('that cannot be written fails with the file error, leaving no file, and the connection goes back to the pool', async () => {
    const file = path.join(dir, 'no-such-folder', 'inbox.ndjson.gz');
    await expect(writeMonthFile(db.pool, HISTORY_TABLES[1], 'inbox_message_default', file)).rejects.toThrow(/ENOENT/);
    await expect(access(`${file}.partial`)).rejects.toThrow(/ENOENT/);
    expect(db.pool.totalCount - db.pool.idleCount).toBe(0);
    expect((await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM inbox_message')).rows[0]!.n).toBe(NASTY.length);
  });

  it('of an empty partition is an empty file with no key range', async () => {
    const file = path.join(dir, 'empty.ndjson.gz');
    const written = await writeMonthFile(db.pool, HISTORY_TABLES[2], 'proc_state_hst_default', file);
    expect(written).toMatchObject({ rows: 0, minKey: null, maxKey: null });
    expect(await readMonthFile(file, HISTORY_TABLES[2].rowKey)).toEqual(written);
  });
});
