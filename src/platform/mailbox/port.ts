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
