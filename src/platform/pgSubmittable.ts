/**
 * A query object node-postgres runs as it is (pg/lib/client.js: an object with a `submit(connection)`
 * method, the interface pg-cursor and pg-query-stream use): the client hands it the protocol messages
 * that follow its query. This base settles `done` once — rejected by an ErrorResponse or a lost
 * connection (no ReadyForQuery may follow), else resolved at ReadyForQuery with `result()` — and
 * ignores every message a subclass does not handle (node-postgres may call any of them on the
 * active query). copyIn.ts and copyOut.ts run COPY this way.
 */

/** What node-postgres' connection offers a submittable (pg/lib/connection.js), as far as msgx uses it. */
export interface SubmittableConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

export abstract class PgSubmittable<T> {
  private settled = false;
  private settle!: { resolve: (value: T) => void; reject: (err: unknown) => void };
  readonly done: Promise<T>;

  constructor() {
    this.done = new Promise<T>((resolve, reject) => (this.settle = { resolve, reject }));
  }

  abstract submit(connection: SubmittableConnection): void;

  /** The query's value at ReadyForQuery; throwing rejects `done` with it. */
  protected abstract result(): T;

  handleError(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.settle.reject(err);
  }

  handleReadyForQuery(): void {
    if (this.settled) return;
    this.settled = true;
    try {
      this.settle.resolve(this.result());
    } catch (err) {
      this.settle.reject(err);
    }
  }

  handleCopyInResponse(_connection: SubmittableConnection): void {}
  handleCopyData(_msg: { chunk: Buffer }): void {}
  handleCommandComplete(_msg: { text?: string }): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
}
