/**
 * `COPY (query) TO STDOUT` on a node-postgres client, its bytes gathered into one Buffer: the
 * cheapest way to read many rows (docs/projections.md "Rebuild", step 2). PostgreSQL sends the rows
 * as CopyData messages without building a DataRow per row, and node-postgres decodes no field: the
 * reader parses the bytes it asked for (binary format: binaryTuples).
 *
 * COPY takes no bind parameters. The values a query needs travel first as parameters of
 * `set_config` (session settings the query reads with `current_setting`): nothing is spliced into
 * SQL text (docs/security.md §11).
 *
 * It runs as a PgSubmittable (pgSubmittable.ts), handling CopyData. node-postgres' parser reuses
 * its buffer for later messages: each CopyData chunk is copied out at once.
 */
import { PgSubmittable, type SubmittableConnection } from './pgSubmittable.ts';

/** The part of a node-postgres client `copyOut` uses. */
export interface CopyOutClient {
  query(submittable: CopyOutSubmittable): unknown;
}

/** Bytes a COPY may send before it is refused (the caller's queries bound their rows far below this). */
const MAX_BYTES = 1 << 30;

export class CopyOutSubmittable extends PgSubmittable<Buffer> {
  private data = Buffer.allocUnsafe(1 << 16);
  private length = 0;
  private failure: Error | undefined;

  constructor(private readonly text: string) {
    super();
  }

  submit(connection: SubmittableConnection): void {
    connection.query(this.text);
  }

  override handleCopyData(msg: { chunk: Buffer }): void {
    const { chunk } = msg;
    const need = this.length + chunk.length;
    if (need > MAX_BYTES) {
      this.failure ??= new Error(`COPY sent more than ${MAX_BYTES} bytes`);
      return;
    }
    if (need > this.data.length) {
      let size = this.data.length * 2;
      while (size < need) size *= 2;
      const grown = Buffer.allocUnsafe(Math.min(size, MAX_BYTES));
      this.data.copy(grown, 0, 0, this.length);
      this.data = grown;
    }
    chunk.copy(this.data, this.length);
    this.length = need;
  }

  protected result(): Buffer {
    if (this.failure !== undefined) throw this.failure;
    return this.data.subarray(0, this.length);
  }
}

/** Run `text` (a `COPY (…) TO STDOUT` statement) on `c`; resolves with every byte it sent. */
export function copyOut(c: CopyOutClient, text: string): Promise<Buffer> {
  const submittable = new CopyOutSubmittable(text);
  c.query(submittable);
  return submittable.done;
}

/** The signature, flags and header extension length that open COPY's binary format. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Where every field of a binary COPY is: field `f` of tuple `t` is the bytes `start[i]` to `end[i]`
 * of the Buffer handed to binaryFields, `i = t * width + f`; a NULL field has start -1. (Typed
 * arrays, not an object per field: a page of the log has 30,000 fields.)
 */
export interface BinaryFields {
  readonly tuples: number;
  readonly start: Int32Array;
  readonly end: Int32Array;
}

/**
 * The fields of a COPY in binary format (PostgreSQL's COPY, "Binary Format"), every tuple `width`
 * fields. Throws on a malformed stream: a wrong signature, a tuple of another width, a truncated
 * tuple or field, no trailer.
 */
export function binaryFields(data: Buffer, width: number): BinaryFields {
  if (data.length < SIGNATURE.length + 8 || !data.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('COPY binary: bad signature');
  let at = SIGNATURE.length + 4;
  at += 4 + data.readUInt32BE(at);
  let start = new Int32Array(64 * width);
  let end = new Int32Array(64 * width);
  let tuples = 0;
  for (;;) {
    if (at + 2 > data.length) throw new Error('COPY binary: the data ends without its trailer');
    const count = data.readInt16BE(at);
    at += 2;
    if (count === -1) return { tuples, start, end };
    if (count !== width) throw new Error(`COPY binary: a tuple of ${count} fields, expected ${width}`);
    if ((tuples + 1) * width > start.length) {
      const grownStart = new Int32Array(start.length * 2);
      grownStart.set(start);
      start = grownStart;
      const grownEnd = new Int32Array(end.length * 2);
      grownEnd.set(end);
      end = grownEnd;
    }
    for (let i = tuples * width, last = i + width; i < last; i++) {
      if (at + 4 > data.length) throw new Error('COPY binary: truncated tuple');
      const len = data.readInt32BE(at);
      at += 4;
      if (len === -1) {
        start[i] = -1;
        end[i] = -1;
        continue;
      }
      if (len < 0 || at + len > data.length) throw new Error('COPY binary: truncated field');
      start[i] = at;
      end[i] = at + len;
      at += len;
    }
    tuples++;
  }
}

/**
 * An 8-byte big-endian signed integer as a number when a double holds it exactly (|value| < 2^53,
 * i.e. |high word| < 2^21: every position, message id and timestamp msgx makes), else undefined.
 */
function exactInt8(data: Buffer, at: number): number | undefined {
  const hi = data.readInt32BE(at);
  return hi < 0x200000 && hi > -0x200000 ? hi * 0x1_0000_0000 + data.readUInt32BE(at + 4) : undefined;
}

/** A bigint field (8 bytes, big-endian, signed) as its decimal text. */
export function int8Text(data: Buffer, at: number): string {
  return String(exactInt8(data, at) ?? data.readBigInt64BE(at));
}

/** 2000-01-01T00:00:00Z, PostgreSQL's epoch for binary timestamps, in milliseconds since 1970. */
const PG_EPOCH_MS = 946_684_800_000;

/** A timestamptz field (microseconds since 2000-01-01 UTC) as milliseconds since 1970, truncated towards the past. */
export function timestampMs(data: Buffer, at: number): number {
  const micros = exactInt8(data, at) ?? Number(data.readBigInt64BE(at));
  return Math.floor(micros / 1000) + PG_EPOCH_MS;
}
