/**
 * The shared mailbox: CMINMSGS (inbox, written by AODB/CIIMS) and COUTMSGS (our outbound mail).
 * Two adapters with the same behaviour: real MySQL (production) and an emulation inside the own
 * PostgreSQL (embedded default). msgx reads CMINMSGS by id only, never by the processed columns.
 */
export interface InboxRow {
  readonly id: string;               // CMINMSGS_ID (int64 as decimal text)
  readonly xml: string;
  readonly receivedAt: Date | null;
}

/** A CMINMSGS row's id and the UTF-8 size of its XML, read without the XML itself. */
export interface InboxRowSize {
  readonly id: string;
  readonly bytes: number;
}

/** A read of readBatch: the rows, their XML's UTF-8 bytes in all, and the size of the id window. */
export interface InboxBatch {
  readonly rows: InboxRow[];
  readonly bytes: number;
  readonly scanned: number;
}

export type BackfillStatus = 'PROCESSED' | 'SKIPPED' | 'DEAD' | 'PARKED';

export interface BackfillItem {
  readonly id: string;
  readonly status: BackfillStatus;
  readonly processedAt: Date;
}

export interface OutboundRow {
  readonly xml: string;
  readonly routingId: string;
  readonly insertedAt: Date;
}

export interface Mailbox {
  readonly kind: 'mysql' | 'postgres';
  /** Committed inbox rows with id > afterId, ascending by id, at most `limit`. */
  readAfter(afterId: string, limit: number): Promise<InboxRow[]>;
  /** Committed inbox rows among `ids` (to close gaps). */
  readIds(ids: readonly string[]): Promise<InboxRow[]>;
  /**
   * Ingest's read of new rows, ONE statement (one snapshot): the committed rows with id > afterId,
   * ascending, at most `limit` — cut to the prefix whose XML fits the byte budget, computed in SQL
   * so that XML beyond it is never sent: a row is taken while `spentBefore` + the UTF-8 bytes up to
   * and including it are at most `maxBytes`, or while nothing was spent before it (the first row
   * of a poll goes through however large). `scanned` is how many rows the `limit` window held (more
   * than `rows.length`: the budget cut it); when no row is returned it is 0, or unknown (-1) if
   * `spentBefore` > 0.
   */
  readBatch(afterId: string, limit: number, maxBytes: number, spentBefore: number): Promise<InboxBatch>;
  /** Ids and XML sizes of the committed rows among `ids`, ascending by id. */
  sizesOf(ids: readonly string[]): Promise<InboxRowSize[]>;
  /** How many committed rows have id > afterId, counted up to `limit`, without reading XML. */
  countAfter(afterId: string, limit: number): Promise<number>;
  /** Compatibility entry and tests: append one inbound message; returns its CMINMSGS_ID. */
  insertInbound(xml: string, receivedAt: Date): Promise<string>;
  /**
   * Write CMINMSGS_DATE_PROCESSED / CMINMSGS_STATUS back. Idempotent. The processed time is the
   * mailbox server's own clock (`NOW()`), so it compares with CMINMSGS_DATE_RECEIVED; `processedAt`
   * (when the decision was recorded) is kept for logs.
   */
  backfill(items: readonly BackfillItem[]): Promise<void>;
  /** Insert one COUTMSGS row; returns its COUTMSGS_ID. */
  insertOutbound(row: OutboundRow): Promise<string>;
  /** A real round trip (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
