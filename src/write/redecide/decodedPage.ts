/**
 * One page of the log as a re-decision consumes it: the decisions, and for each decision that
 * ended a message (with the message's raw input), that message decoded by this process's codec.
 * A page travels as one JSON text — built from the payloads' jsonb text as PostgreSQL sends it
 * (never parsed on the way) and the decoded messages — so a worker thread can read and decode it
 * and hand it over as one string (no structured clone of thousands of objects), and the reader
 * pays one native JSON.parse. The in-process reader builds and parses the same text, so both give
 * the very same objects.
 */
import type { Queryable } from '../../platform/db.ts';
import type { Config } from '../../platform/config.ts';
import { decodeHead, type DecodedHead } from '../pump/decodeHead.ts';
import { decisionBody, type DecisionBody } from '../../domain/decisionPayload.ts';
import { readLogRows, type LoggedColumns, type LogPageRow } from '../../log/readPage.ts';

interface ReadColumns extends Omit<LoggedColumns, 'rawXml' | 'nulReplaced'> {
  /** The message decoded again; null when it has no raw input to decide. */
  readonly decoded: DecodedHead | null;
}

/** A logged decision with its message decoded again; its kind and payload read through decisionBody. */
export type ReadDecision = ReadColumns & DecisionBody;

/** A decision of a page's JSON text as this module wrote it (kind and payload not yet checked). */
interface PageEntry extends ReadColumns {
  readonly kind: string;
  payload: unknown;
}

export type DecodeConfig = Pick<Config, 'airportTz' | 'identityIncludeDay' | 'airportIata'>;

const str = (v: string | null): string => (v === null ? 'null' : JSON.stringify(v));

/** Rows of the log as one JSON page (see parsePage), their messages decoded; the number of rows and the last position. */
export function decodedPageOf(rows: readonly LogPageRow[], cfg: DecodeConfig): { text: string; rows: number; last: string | null } {
  const parts: string[] = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const decoded = r.raw_xml === null || r.msg_id === null ? 'null' : JSON.stringify(decodeHead(r.raw_xml, r.nul_replaced ?? false, cfg));
    parts[i] = `{"position":${str(r.position)},"msgId":${str(r.msg_id)},"kind":${str(r.kind)},"handler":${str(r.handler)},` +
      `"handlerVersion":${r.handler_version === null ? 'null' : String(r.handler_version)},"payload":${r.payload},` +
      `"recordedAt":${str(r.recorded_at)},"decoded":${decoded}}`;
  }
  return { text: `[${parts.join(',')}]`, rows: rows.length, last: rows.length > 0 ? rows[rows.length - 1]!.position : null };
}

/** Up to `limit` decisions with `after < position <= upTo` as one JSON page (see parsePage); the number of rows and the last position. */
export async function readDecodedPage(
  q: Queryable, after: string, upTo: string, limit: number, cfg: DecodeConfig,
): Promise<{ text: string; rows: number; last: string | null }> {
  return decodedPageOf(await readLogRows(q, after, upTo, limit), cfg);
}

export function parsePage(text: string): ReadDecision[] {
  const entries: PageEntry[] = JSON.parse(text);
  // Checked through decisionBody (it throws on a malformed payload and returns the entry's own kind
  // and payload, uncopied but for created flights expanded from their stored compact form,
  // compactChange.ts), so each entry becomes the ReadDecision: no second object per row.
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    e.payload = decisionBody(e.position, e.kind, e.payload).payload;
  }
  return entries as unknown as ReadDecision[];
}
