/**
 * `COPY (query) TO STDOUT` streamed into a Writable (a gzip stream, a file) as PostgreSQL sends it:
 * memory is bounded by one staging buffer and the largest row, not by the query's result, and a
 * slow sink pauses the connection's socket (so PostgreSQL waits, not node's heap). copyOut.ts
 * gathers a bounded page into one Buffer instead; this is for results of any size (a month of the
 * log, docs/operations.md "Archive a month").
 *
 * In text and CSV format PostgreSQL sends one CopyData message per row: the caller is told the
 * row count. node-postgres' parser reuses its buffer for later messages, so each row is copied
 * once, into the staging buffer (a row larger than it, into a buffer of its own), which is handed
 * to the sink whole when full (one write per STAGE_BYTES, not one per row: a write per row cost
 * the archive 3.6× its time in zlib's per-call overhead).
 */
import type { Writable } from 'node:stream';
import { PgSubmittable, type SubmittableConnection } from './pgSubmittable.ts';

/** Bytes gathered before one write to the sink. */
const STAGE_BYTES = 1 << 20;

/** What the COPY sent. */
export interface StreamedCopy {
  /** CopyData messages: rows, in text or CSV format. */
  readonly rows: number;
}

/** node-postgres' connection as a streaming COPY uses it: its query and its socket. */
interface StreamingConnection extends SubmittableConnection {
  readonly stream: { pause(): void; resume(): void };
}

/** The part of a node-postgres client `copyOutTo` uses. */
export interface CopyOutStreamClient {
  query(submittable: CopyOutStreamSubmittable): unknown;
}

export class CopyOutStreamSubmittable extends PgSubmittable<StreamedCopy> {
  private stage = Buffer.allocUnsafe(STAGE_BYTES);
  private used = 0;
  private rows = 0;
  private connection: StreamingConnection | undefined;
  private failure: Error | undefined;
  private paused = false;

  constructor(
    private readonly text: string,
    private readonly sink: Writable,
    private readonly onRows?: (rows: number) => void,
  ) {
    super();
    sink.on('error', (err: Error) => {
      this.failure ??= err;
      this.unpause(); // the rest of the COPY is read and dropped; `done` rejects at its end
    });
  }

  submit(connection: SubmittableConnection): void {
    this.connection = connection as StreamingConnection;
    connection.query(this.text);
  }

  override handleCopyData(msg: { chunk: Buffer }): void {
    if (this.failure !== undefined) return;
    const { chunk } = msg;
    this.rows++;
    if (chunk.length > STAGE_BYTES - this.used) this.flush();
    if (chunk.length > STAGE_BYTES) {
      this.write(Buffer.from(chunk));
    } else {
      chunk.copy(this.stage, this.used);
      this.used += chunk.length;
    }
    if (this.rows % 2000 === 0) this.onRows?.(this.rows);
  }

  override handleCommandComplete(): void {
    this.flush();
  }

  // The client goes on with its next query: its socket must not stay paused waiting for a drain
  // (a sink being ended emits none).
  override handleReadyForQuery(): void {
    this.unpause();
    super.handleReadyForQuery();
  }

  override handleError(err: unknown): void {
    this.unpause();
    super.handleError(err);
  }

  protected result(): StreamedCopy {
    if (this.failure !== undefined) throw this.failure;
    return { rows: this.rows };
  }

  /** Hand the staged bytes to the sink (the stage then belongs to it) and start a new stage. */
  private flush(): void {
    if (this.used === 0 || this.failure !== undefined) return;
    const full = this.stage.subarray(0, this.used);
    this.stage = Buffer.allocUnsafe(STAGE_BYTES);
    this.used = 0;
    this.write(full);
  }

  private write(bytes: Buffer): void {
    if (this.sink.write(bytes) || this.paused) return;
    // Messages already read from the socket are still parsed; the socket sends no more until the drain.
    this.paused = true;
    this.connection?.stream.pause();
    this.sink.once('drain', this.unpause);
  }

  private readonly unpause = (): void => {
    if (!this.paused) return;
    this.paused = false;
    this.sink.off('drain', this.unpause);
    this.connection?.stream.resume();
  };
}

/**
 * Run `text` (a `COPY (…) TO STDOUT` statement in text or CSV format) on `c`, writing every byte to
 * `sink` (not ended: the caller ends it). `onRows` is told the rows so far every 2,000 rows.
 */
export function copyOutTo(c: CopyOutStreamClient, text: string, sink: Writable, onRows?: (rows: number) => void): Promise<StreamedCopy> {
  const submittable = new CopyOutStreamSubmittable(text, sink, onRows);
  c.query(submittable);
  return submittable.done;
}
