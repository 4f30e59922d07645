/**
 * One table's month as a file (docs/operations.md "Archive a month"): gzip of NDJSON, one
 * `to_jsonb(row)` per line in row-key order, written to a temporary name, fsynced and renamed,
 * then read back whole to check its sha256, row count and key range. Memory is bounded by one page
 * of PAGE_ROWS rows (each row ≤ a raw message, itself bounded at ingest); time is one sequential
 * read of the partition and one of the file.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { createGunzip, createGzip } from 'node:zlib';
import type { Queryable } from '../../platform/db.ts';
import type { HistoryTable } from '../../log/historyMonths.ts';

export const PAGE_ROWS = 2_000;

interface PageRow {
  key: string;
  part: string;
  j: string;
}

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

/** Write partition `partition` of `spec` to `file` (replacing it); its summary. */
export async function writeMonthFile(q: Queryable, spec: HistoryTable, partition: string, file: string, onPage?: RowsDone): Promise<FileSummary> {
  const tmp = `${file}.partial`;
  const hash = createHash('sha256');
  const gzip = createGzip();
  const out = createWriteStream(tmp);
  gzip.on('data', (chunk: Buffer) => hash.update(chunk));
  gzip.pipe(out);
  const done = once(out, 'finish');
  let rows = 0;
  let minKey: string | null = null;
  let maxKey: string | null = null;
  let after: { key: string; part: string } | null = null;
  for (;;) {
    const page: PageRow[] = (await q.query<PageRow>(
      `SELECT ${spec.rowKey}::text AS key, ${spec.partitionKey}::text AS part, to_jsonb(t)::text AS j
         FROM ${partition} t
        WHERE $1::bigint IS NULL OR (${spec.rowKey}, ${spec.partitionKey}) > ($1::bigint, $2::timestamptz)
        ORDER BY ${spec.rowKey}, ${spec.partitionKey} LIMIT ${PAGE_ROWS}`,
      [after?.key ?? null, after?.part ?? null],
    )).rows;
    for (const r of page) {
      if (!gzip.write(r.j + '\n')) await once(gzip, 'drain');
      minKey ??= r.key;
      maxKey = r.key;
      rows++;
    }
    onPage?.(rows);
    if (page.length < PAGE_ROWS) break;
    const last: PageRow = page[page.length - 1]!;
    after = { key: last.key, part: last.part };
  }
  gzip.end();
  await done;
  const fh = await open(tmp, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  return { sha256: hash.digest('hex'), rows, minKey, maxKey };
}

/** Read `file` back: its sha256 and, decompressed, its row count and key range. */
export async function readMonthFile(file: string, rowKey: string, onRows?: (lines: string[]) => Promise<void>, onPage?: RowsDone): Promise<FileSummary> {
  const hash = createHash('sha256');
  const raw = createReadStream(file);
  raw.on('data', (chunk) => hash.update(chunk));
  const lines = createInterface({ input: raw.pipe(createGunzip()), crlfDelay: Infinity });
  let rows = 0;
  let minKey: string | null = null;
  let maxKey: string | null = null;
  let batch: string[] = [];
  for await (const line of lines) {
    if (line === '') continue;
    const key = String((JSON.parse(line) as Record<string, unknown>)[rowKey]);
    minKey ??= key;
    maxKey = key;
    rows++;
    if (rows % PAGE_ROWS === 0) onPage?.(rows);
    if (onRows) {
      batch.push(line);
      if (batch.length >= PAGE_ROWS) {
        await onRows(batch);
        batch = [];
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
