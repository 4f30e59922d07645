/**
 * Ingest's byte budget over CMINMSGS rows, and the InboxBatch a one-statement read returns. The
 * rule is the same wherever it is applied (in node here, in SQL in the adapters' readBatch): rows
 * are taken in id order while `spent` + the row's UTF-8 bytes stays within `maxBytes`, and always
 * while nothing is spent yet — the first row of a poll goes through however large.
 */
import type { InboxBatch, InboxRow, InboxRowSize } from './port.ts';

/** How many of `sizes`, from the first, fit the budget after `spentBefore` bytes. */
export function fittingCount(sizes: readonly InboxRowSize[], spentBefore: number, maxBytes: number): number {
  let spent = spentBefore;
  let n = 0;
  for (const s of sizes) {
    if (spent > 0 && spent + s.bytes > maxBytes) break;
    spent += s.bytes;
    n++;
  }
  return n;
}

/**
 * The InboxBatch of a one-statement readBatch's rows (see Mailbox.readBatch), each carrying its
 * XML's bytes and the window's size: the bytes summed, `scanned` from the rows — or, when none
 * came back, 0, or unknown (-1) if `spentBefore` > 0.
 */
export function batchOfRows<R extends { readonly bytes: number | string; readonly scanned: number | string }>(
  rows: readonly R[],
  toRow: (r: R) => InboxRow,
  spentBefore: number,
): InboxBatch {
  let bytes = 0;
  const out = rows.map((r) => {
    bytes += Number(r.bytes);
    return toRow(r);
  });
  return { rows: out, bytes, scanned: rows.length > 0 ? Number(rows[0]!.scanned) : spentBefore > 0 ? -1 : 0 };
}
