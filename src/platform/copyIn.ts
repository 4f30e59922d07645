/**
 * `COPY … FROM STDIN` on a node-postgres client, in PostgreSQL's text format: the cheapest way to
 * load many rows (docs/projections.md "Rebuild", step 3). PostgreSQL reads each field with the
 * column type's own input function, as it reads an array element of `unnest($1::type[])`, so the
 * same texts give the same values; but it parses no array literal or JSON array around them and
 * runs no `unnest` executor node.
 *
 * It runs as a PgSubmittable (pgSubmittable.ts), handling CopyInResponse and CommandComplete: the
 * whole text goes out as soon as PostgreSQL asks for it, in CopyData messages of at most COPY_CHUNK
 * bytes.
 */
import { PgSubmittable, type SubmittableConnection } from './pgSubmittable.ts';
import type { CellValue, ColumnSpec } from './sqlBatch.ts';

/** The part of a node-postgres client `copyIn` uses: a query whose argument is a submittable. */
export interface CopyClient {
  query(submittable: CopySubmittable): unknown;
}

const COPY_CHUNK = 1 << 20;

/** One table's part of a `copyIn`: `target` is the table and its column list, `data` the rows as COPY text (copyText). */
export interface CopyPart {
  readonly target: string;
  readonly data: string;
}

/**
 * Several COPY FROM STDIN statements as ONE simple query, as node-postgres' client runs a query:
 * PostgreSQL asks for each statement's data in turn (one CopyInResponse per statement), answers
 * each with CommandComplete and the whole with one ReadyForQuery. The statements run in order, in
 * one implicit transaction when the session has none open.
 */
export class CopySubmittable extends PgSubmittable<number> {
  private readonly texts: string;
  private next = 0;
  private rows = 0;

  constructor(private readonly parts: readonly CopyPart[]) {
    super();
    this.texts = parts.map((p) => `COPY ${p.target} FROM STDIN`).join('; ');
  }

  submit(connection: SubmittableConnection): void {
    connection.query(this.texts);
  }

  override handleCopyInResponse(connection: SubmittableConnection): void {
    const part = this.parts[this.next++];
    const data = Buffer.from(part?.data ?? '', 'utf8');
    for (let at = 0; at < data.length; at += COPY_CHUNK) connection.sendCopyFromChunk(data.subarray(at, at + COPY_CHUNK));
    connection.endCopyFrom();
  }

  override handleCommandComplete(msg: { text?: string }): void {
    const n = /^COPY (\d+)$/.exec(msg.text ?? '')?.[1];
    if (n !== undefined) this.rows += Number(n);
  }

  protected result(): number {
    return this.rows;
  }
}

/** Run `COPY <target> FROM STDIN` for each part, in order, as one query on `c`; resolves with the rows copied. */
export function copyIn(c: CopyClient, parts: readonly CopyPart[]): Promise<number> {
  if (parts.length === 0) return Promise.resolve(0);
  const submittable = new CopySubmittable(parts);
  c.query(submittable);
  return submittable.done;
}

const NEEDS_ESCAPE = /[\\\n\r\t]/;
const ESCAPED: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A field of COPY's text format: `\N` for null, backslash, newline, carriage return and tab escaped. */
export function copyField(v: CellValue | undefined): string {
  if (v === null || v === undefined) return '\\N';
  const s = typeof v === 'string' ? v : String(v);
  return NEEDS_ESCAPE.test(s) ? s.replace(/[\\\n\r\t]/g, (ch) => ESCAPED[ch]!) : s;
}

/**
 * Rows as COPY text: fields separated by tabs, each row ended by a newline. A `json`/`jsonb` cell
 * is JSON text like any other text (its backslashes escaped).
 */
export function copyText(rows: readonly (readonly CellValue[])[], columns: readonly ColumnSpec[]): string {
  const width = columns.length;
  const lines = new Array<string>(rows.length + 1);
  const fields = new Array<string>(width);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (row.length !== width) throw new Error(`row ${r} has ${row.length} cells, expected ${width}`);
    for (let c = 0; c < width; c++) fields[c] = copyField(row[c]);
    lines[r] = fields.join('\t');
  }
  lines[rows.length] = '';
  return lines.join('\n');
}
