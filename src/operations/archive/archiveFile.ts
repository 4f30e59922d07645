/**
 * One table's month as a file (docs/operations.md "Archive a month"): gzip of NDJSON, one
 * `to_jsonb(row)` per line in row-key order, written to a temporary name, fsynced and renamed,
 * then read back whole to check its sha256, row count and key range. Memory is bounded by a 1 MiB
 * staging buffer and the largest row (the write streams, copyOutStream.ts; the read-back holds one
 * line at a time, and a restore one batch of LINE_BATCHES); time is one sequential read of the
 * partition and one of the file.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { Pool } from '../../platform/db.ts';
import { copyOutTo, type StreamedCopy } from '../../platform/copyOutStream.ts';
import type { HistoryTable } from '../../log/historyMonths.ts';

export const PAGE_ROWS = 2_000;

export interface FileSummary {
  readonly sha256: string;
  readonly rows: number;
  /** Smallest and largest row key (position or msg_id), null when the month is empty. */
  readonly minKey: string | null;
  readonly maxKey: string | null;
}

/** How often a long file write, read-back or load says how far it got. */
export const PROGRESS_MS = 10_000;

/** `report`, at most once per `ms` (the first call after `ms` has passed). */
export function every(ms: number, report: (rows: number) => void): (rows: number) => void {
  let last = performance.now();
  return (rows) => {
    const now = performance.now();
    if (now - last < ms) return;
    last = now;
    report(rows);
  };
}

/** Told the rows done so far, after each page (a long month's progress). */
export type RowsDone = (rows: number) => void;

/**
 * The month's rows as ONE `COPY … TO STDOUT` (src/platform/copyOutStream.ts), streamed into gzip:
 * CSV with a delimiter and a quote character that a jsonb text never holds raw (it escapes every
 * control character), so each line is exactly `to_jsonb(row)::text`, the bytes the file had when
 * it was written page by page (the format readMonthFile and restore read is unchanged).
 */
function monthCopy(spec: HistoryTable, partition: string): string {
  return `COPY (SELECT to_jsonb(t)::text FROM ${partition} t ORDER BY ${spec.rowKey}, ${spec.partitionKey})
    TO STDOUT (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')`;
}

/** Write partition `partition` of `spec` to `file` (replacing it); its summary. */
export async function writeMonthFile(pool: Pool, spec: HistoryTable, partition: string, file: string, onPage?: RowsDone): Promise<FileSummary> {
  const tmp = `${file}.partial`;
  const hash = createHash('sha256');
  const gzip = createGzip();
  gzip.on('data', (chunk: Buffer) => hash.update(chunk));
  // A failing file (disk full) destroys gzip too, which ends the COPY at once with that error.
  const written = pipeline(gzip, createWriteStream(tmp));
  written.catch(() => undefined); // awaited below
  const c = await pool.connect();
  let copied: StreamedCopy;
  let keys: { min: string | null; max: string | null };
  try {
    // The key range and the rows from one snapshot; the keys as PostgreSQL prints them (exact, where
    // a JSON number past 2^53 would not be).
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    keys = (await c.query<{ min: string | null; max: string | null }>(`SELECT min(${spec.rowKey})::text AS min, max(${spec.rowKey})::text AS max FROM ${partition}`)).rows[0]!;
    copied = await copyOutTo(c, monthCopy(spec, partition), gzip, onPage);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    gzip.destroy();
    await written.catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  } finally {
    c.release();
  }
  gzip.end();
  await written;
  const fh = await open(tmp, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  return { sha256: hash.digest('hex'), rows: copied.rows, minKey: keys.min, maxKey: keys.max };
}

/**
 * How many lines `readMonthFile` hands to `onRows` at once: at most `rows` lines and, unless one
 * line alone is longer, at most `chars` characters. A restore sends a batch as one statement
 * parameter: a month's decisions include plans (a payload of megabytes, up to jsonb's 255 MB), and
 * 2,000 such lines would pass both V8's longest string and PostgreSQL's 1 GB for one value.
 */
export interface LineBatches {
  readonly rows: number;
  readonly chars: number;
}

export const LINE_BATCHES: LineBatches = { rows: PAGE_ROWS, chars: 16 << 20 };

/** Read `file` back: its sha256 and, decompressed, its row count and key range. */
export async function readMonthFile(
  file: string, rowKey: string, onRows?: (lines: string[]) => Promise<void>, onPage?: RowsDone, batches: LineBatches = LINE_BATCHES,
): Promise<FileSummary> {
  const hash = createHash('sha256');
  const raw = createReadStream(file);
  raw.on('data', (chunk) => hash.update(chunk));
  const lines = createInterface({ input: raw.pipe(createGunzip()), crlfDelay: Infinity });
  let rows = 0;
  let minKey: string | null = null;
  let maxKey: string | null = null;
  let batch: string[] = [];
  let chars = 0;
  for await (const line of lines) {
    if (line === '') continue;
    const key = String((JSON.parse(line) as Record<string, unknown>)[rowKey]);
    minKey ??= key;
    maxKey = key;
    rows++;
    if (rows % PAGE_ROWS === 0) onPage?.(rows);
    if (onRows) {
      if (batch.length > 0 && chars + line.length > batches.chars) {
        await onRows(batch);
        batch = [];
        chars = 0;
      }
      batch.push(line);
      chars += line.length;
      if (batch.length >= batches.rows) {
        await onRows(batch);
        batch = [];
        chars = 0;
      }
    }
  }
  if (onRows && batch.length > 0) await onRows(batch);
  return { sha256: hash.digest('hex'), rows, minKey, maxKey };
}

/** The checksum file of a month: `sha256sum` format (`sha256sum -c` checks it), one line per file. */
export function checksumText(entries: readonly { sha256: string; base: string }[]): string {
  return entries.map((e) => `${e.sha256}  ${e.base}\n`).join('');
}

/** `sha256sum` lines back to entries. */
export function parseChecksums(text: string): { sha256: string; base: string }[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(l);
      if (!m) throw new Error(`not a sha256sum line: ${l.slice(0, 100)}`);
      return { sha256: m[1]!, base: m[2]! };
    });
}
