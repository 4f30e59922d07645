import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyOutTo } from '../../src/platform/copyOutStream.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('copyoutstream');
});
afterAll(async () => db?.drop());

/**
 * A sink that holds every write until the test lets it go (`release`), with a small high-water
 * mark: the COPY must pause, not buffer the result in node.
 */
class HeldSink extends Writable {
  readonly chunks: Buffer[] = [];
  private held: (() => void)[] = [];
  writes = 0;
  constructor() {
    super({ highWaterMark: 1024 });
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error) => void): void {
    this.writes++;
    this.chunks.push(chunk);
    this.held.push(() => done());
  }
  /** Let every held write complete. */
  release(): number {
    const n = this.held.length;
    for (const done of this.held.splice(0)) done();
    return n;
  }
}

class CollectSink extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error) => void): void {
    this.chunks.push(chunk);
    done();
  }
}

const ROWS_SQL = (n: number, width: number) =>
  `COPY (SELECT json_build_object('id', i, 'pad', repeat('x', ${width}))::text FROM generate_series(1, ${n}) i ORDER BY i)
     TO STDOUT (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')`;

describe('copyOutTo', () => {
  it('streams every row in order, one write per staged MiB, and counts them', async () => {
    const c = await db.pool.connect();
    const sink = new CollectSink();
    try {
      // 5,000 rows of ~1 KB: ~5 MB, so the stage is handed over several times.
      const copied = await copyOutTo(c, ROWS_SQL(5000, 1000), sink);
      const lines = Buffer.concat(sink.chunks).toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(5000);
      expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
      expect(copied).toEqual({ rows: 5000 });
      expect(sink.chunks.length).toBeGreaterThanOrEqual(4);
      expect(sink.chunks.length).toBeLessThanOrEqual(6);
    } finally {
      c.release();
    }
  });

  it('keeps rows larger than the stage whole, between staged ones', async () => {
    const c = await db.pool.connect();
    const sink = new CollectSink();
    try {
      const copied = await copyOutTo(
        c,
        `COPY (SELECT json_build_object('id', i, 'pad', repeat('y', CASE WHEN i = 2 THEN 3000000 ELSE 10 END))::text
                 FROM generate_series(1, 3) i ORDER BY i) TO STDOUT (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')`,
        sink,
      );
      const lines = Buffer.concat(sink.chunks).toString('utf8').split('\n').filter((l) => l !== '');
      expect(lines.map((l) => (JSON.parse(l) as { pad: string }).pad.length)).toEqual([10, 3_000_000, 10]);
      expect(copied).toEqual({ rows: 3 });
      // A big row alone, the last thing sent: written whole, nothing left staged.
      const sink2 = new CollectSink();
      expect(await copyOutTo(c, `COPY (SELECT repeat('z', 2000000)) TO STDOUT (FORMAT csv)`, sink2)).toEqual({ rows: 1 });
      expect(Buffer.concat(sink2.chunks).toString()).toBe(`${'z'.repeat(2_000_000)}\n`);
    } finally {
      c.release();
    }
  });

  it('pauses the connection while the sink is full, and the connection works after the COPY', async () => {
    const c = await db.pool.connect();
    const sink = new HeldSink();
    let settled = false;
    try {
      const copying = copyOutTo(c, ROWS_SQL(20000, 500), sink).finally(() => {
        settled = true;
      });
      // The sink takes its first write and then holds it: the COPY cannot end until writes complete.
      await expect.poll(() => sink.writes, { timeout: 10_000 }).toBeGreaterThan(0);
      const heldAt = sink.writes;
      expect(settled).toBe(false);
      // Let the writes through one batch at a time until the COPY ends.
      while (!settled) {
        sink.release();
        await new Promise((r) => setImmediate(r));
      }
      const copied = await copying;
      // The COPY ends when PostgreSQL's data is all handed to the sink, which may still hold some.
      const finished = new Promise((r) => sink.end(r));
      let done = false;
      void finished.then(() => (done = true));
      while (!done) {
        sink.release();
        await new Promise((r) => setImmediate(r));
      }
      expect(heldAt).toBeLessThan(sink.writes);
      expect(copied.rows).toBe(20000);
      const lines = Buffer.concat(sink.chunks).toString('utf8').split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(20000);
      // The socket is not left paused: the next query answers.
      expect((await c.query<{ n: number }>('SELECT 3 AS n')).rows[0]!.n).toBe(3);
    } finally {
      c.release();
    }
  });

  it('ends with the socket flowing when the last write fills a sink that is then ended (no drain comes)', async () => {
    const c = await db.pool.connect();
    try {
      for (let round = 0; round < 3; round++) {
        const sink = new Writable({ highWaterMark: 16, write: (_chunk, _enc, done) => setImmediate(done) });
        const copied = await copyOutTo(c, ROWS_SQL(10, 10), sink);
        sink.end();
        expect(copied.rows).toBe(10);
        expect((await c.query<{ n: number }>('SELECT $1::int AS n', [round])).rows[0]!.n).toBe(round);
      }
    } finally {
      c.release();
    }
  });

  it('rejects with the sink error or the server error, and the connection stays usable', async () => {
    const c = await db.pool.connect();
    try {
      const failing = new Writable({ write: (_chunk, _enc, done) => done(new Error('disk full')) });
      failing.on('error', () => undefined);
      await expect(copyOutTo(c, ROWS_SQL(20000, 200), failing)).rejects.toThrow(/disk full/);
      expect((await c.query<{ n: number }>('SELECT 4 AS n')).rows[0]!.n).toBe(4);
      await expect(copyOutTo(c, 'COPY (SELECT 1 / 0) TO STDOUT (FORMAT csv)', new CollectSink())).rejects.toThrow(/division by zero/);
      expect((await c.query<{ n: number }>('SELECT 5 AS n')).rows[0]!.n).toBe(5);
      const none = await copyOutTo(c, 'COPY (SELECT 1 WHERE false) TO STDOUT (FORMAT csv)', new CollectSink());
      expect(none).toEqual({ rows: 0 });
    } finally {
      c.release();
    }
  });
});
