/**
 * The rebuild's read of the log (docs/projections.md "Rebuild", step 2): a page of decisions as ONE
 * `COPY (…) TO STDOUT` in binary format (src/platform/copyOut.ts), whose changes node joins into one
 * JSON text and parses with one `JSON.parse`.
 *
 * Why this form (the week's 205,005 decisions, 41 pages of 5,000, on the 2-core machine of
 * docs/benchmarks.md): PostgreSQL spends ~11 ms on a page here, against ~30 ms when it built the
 * page's JSON text itself (a `string_agg` of `||` concatenations: ~0.8 CPU-s over the week), and
 * node-postgres decodes nothing: no row object, no string per field (DataRow fields are always
 * decoded as UTF-8 text). The changes are copied byte for byte into the page's text, which is
 * decoded as Latin-1 when it is all ASCII (a copy, no UTF-8 decoding), as UTF-8 otherwise.
 *
 * The events are those readDecisionsAfter gives, value for value: the same columns, recorded_at as
 * the same UTC text (milliseconds truncated, as to_char's `MS` has them), the changes expanded by
 * the same expandChanges. A decision whose stored payload is over BIG_BYTES is left out of the
 * page's text and read on its own (a plan of up to 255 MB of jsonb); the small payloads of one page
 * are bounded by PAGE_BYTES (the rows after that bound come without their changes, and the next page
 * starts there), so a page stays far under PostgreSQL's 1 GB limit for one value.
 *
 * The page is read by the primary key in position order and the window takes the rows in that
 * order, so nothing is sorted. The rows' order is what the plan gives, not something SQL promises:
 * they are checked to ascend (and sorted when they do not).
 */
import { isAscii } from 'node:buffer';
import type { Change } from '../domain/changes.ts';
import { expandChanges } from '../domain/compactChange.ts';
import { decisionKindAt } from '../domain/decisionPayload.ts';
import { pushAll } from '../platform/arrays.ts';
import type { Queryable } from '../platform/db.ts';
import { binaryFields, copyOut, int8Text, timestampMs, type CopyOutClient } from '../platform/copyOut.ts';
import type { DecisionEvent } from './readDecisions.ts';

/** A payload stored larger than this (pg_column_size: compressed bytes) is read on its own. */
const BIG_BYTES = 1 << 20;
/** Stored bytes of the small payloads one page's text may hold (at least one decision is always read). */
const PAGE_BYTES = 16 << 20;

/** A client that runs both parameterised queries and COPY (a pool's client, not the pool). */
export type PageClient = Queryable & CopyOutClient;

export interface RebuildPage {
  readonly events: DecisionEvent[];
  /** False when the page reached the end of the log: fewer than `limit` decisions were after `after`. */
  readonly more: boolean;
}

/** The page's bounds in stored bytes (tests make them small). */
export interface PageBounds {
  readonly bigBytes: number;
  readonly pageBytes: number;
}

const BOUNDS: PageBounds = { bigBytes: BIG_BYTES, pageBytes: PAGE_BYTES };

/** Where a row of the page stands: in the page's text, read apart (big), or after the page's bytes. */
const Place = { InText: 0, Apart: 1, Beyond: 2 } as const;
type Place = (typeof Place)[keyof typeof Place];

/**
 * The page as COPY sends it. Its values are the session settings readRebuildPage sets (COPY takes
 * no parameters): after, limit, big and page bytes.
 */
const PAGE_COPY = `COPY (
  SELECT position, msg_id, kind, recorded_at, place::int2,
         CASE WHEN place = 0 THEN (payload->'changes')::text END
    FROM (SELECT position, msg_id, kind, recorded_at, payload,
                 CASE WHEN before >= current_setting('msgx.page_bytes')::bigint AND n > 1 THEN 2
                      WHEN size > current_setting('msgx.page_big')::bigint THEN 1 ELSE 0 END AS place
            FROM (SELECT *, sum(CASE WHEN size > current_setting('msgx.page_big')::bigint THEN 0 ELSE size END) OVER w
                            - CASE WHEN size > current_setting('msgx.page_big')::bigint THEN 0 ELSE size END AS before,
                         row_number() OVER w AS n
                    FROM (SELECT position, msg_id, kind, recorded_at, payload, pg_column_size(payload) AS size
                            FROM decision_event
                           WHERE position > current_setting('msgx.page_after')::bigint
                           ORDER BY position LIMIT current_setting('msgx.page_limit')::bigint) d
                  WINDOW w AS (ORDER BY position)) s) p
) TO STDOUT (FORMAT binary)`;

interface PageRow {
  readonly position: string;
  readonly msgId: string | null;
  readonly kind: string;
  readonly recordedMs: number;
  readonly place: Place;
  /** The changes' JSON text in the COPY data; null: the decision has none (or they are read apart). */
  readonly changes: { readonly start: number; readonly end: number } | null;
}

/** Columns of PAGE_COPY. */
const WIDTH = 6;

const NULL_TEXT = Buffer.from('null');

/** Up to `limit` events after position `after`, ascending, as readDecisionsAfter has them. */
export async function readRebuildPage(c: PageClient, after: string, limit: number, bounds: PageBounds = BOUNDS): Promise<RebuildPage> {
  // Both queued at once: node-postgres runs a client's queries in the order they were asked for, so
  // no other query of this client (another page's settings) comes between the settings and the COPY.
  const [, data] = await Promise.all([
    c.query(
      `SELECT set_config('msgx.page_after', $1, false), set_config('msgx.page_limit', $2, false),
              set_config('msgx.page_big', $3, false), set_config('msgx.page_bytes', $4, false)`,
      [after, String(limit), String(bounds.bigBytes), String(bounds.pageBytes)],
    ),
    copyOut(c, PAGE_COPY),
  ]);
  const fields = binaryFields(data, WIDTH);
  const { start, end } = fields;
  const rows: PageRow[] = [];
  let cut = false;
  for (let t = 0; t < fields.tuples; t++) {
    const at = t * WIDTH;
    const place = data.readInt16BE(start[at + 4]!) as Place;
    if (place === Place.Beyond) {
      cut = true;
      break;
    }
    rows.push({
      position: int8Text(data, start[at]!),
      msgId: start[at + 1]! < 0 ? null : int8Text(data, start[at + 1]!),
      kind: data.toString('utf8', start[at + 2]!, end[at + 2]!),
      recordedMs: timestampMs(data, start[at + 3]!),
      place,
      changes: start[at + 5]! < 0 ? null : { start: start[at + 5]!, end: end[at + 5]! },
    });
  }
  if (!ascending(rows)) rows.sort((a, b) => comparePositions(a.position, b.position));
  const parsed = parseChanges(data, rows);
  const events = new Array<DecisionEvent>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const changes = row.place === Place.Apart ? await changesApart(c, row.position) : parsed[i];
    events[i] = {
      position: row.position, msgId: row.msgId, kind: decisionKindAt(row.position, row.kind),
      changes: Array.isArray(changes) ? expandChanges(changes as Change[]) : null,
      recordedAt: new Date(row.recordedMs).toISOString(),
    };
  }
  return { events, more: cut || fields.tuples === limit };
}

/**
 * Text of the page's changes parsed at once, at most: a string of this many bytes stays in V8's
 * young generation, where one over ~128 KB is a large object of its own (a page of 1.2 MB as one
 * string cost ~10 ms to make and parse against ~3 ms in parts of this size).
 */
const PART_BYTES = 48 << 10;

/**
 * Every row's changes, parsed from the COPY bytes: rows joined into `[c1,c2,…]` texts of about
 * PART_BYTES (`null`: none, or read apart), each decoded (Latin-1 when all ASCII: a copy) and
 * parsed with one JSON.parse.
 */
function parseChanges(data: Buffer, rows: readonly PageRow[]): unknown[] {
  const out: unknown[] = [];
  let part = Buffer.allocUnsafe(PART_BYTES + 2);
  let at = 0;
  const flush = () => {
    if (at === 0) return;
    part[at++] = 0x5d; // ]
    const json = part.subarray(0, at);
    const parsed = JSON.parse(json.toString(isAscii(json) ? 'latin1' : 'utf8')) as unknown[];
    pushAll(out, parsed);
    at = 0;
  };
  for (const r of rows) {
    const len = r.changes === null ? NULL_TEXT.length : r.changes.end - r.changes.start;
    if (at > 0 && at + len + 2 > PART_BYTES) flush();
    if (at + len + 2 > part.length) part = Buffer.allocUnsafe(len + 2); // one row's changes over PART_BYTES: a part of its own
    part[at] = at === 0 ? 0x5b : 0x2c; // [ or ,
    at++;
    if (r.changes !== null) at += data.copy(part, at, r.changes.start, r.changes.end);
    else at += NULL_TEXT.copy(part, at);
  }
  flush();
  return out;
}

/** Positions are decimal texts without leading zeros: the longer is the larger, else the text order. */
function comparePositions(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

function ascending(rows: readonly PageRow[]): boolean {
  for (let i = 1; i < rows.length; i++) if (comparePositions(rows[i - 1]!.position, rows[i]!.position) >= 0) return false;
  return true;
}

async function changesApart(q: Queryable, position: string): Promise<unknown> {
  const { rows } = await q.query<{ changes: string | null }>(
    `SELECT (payload->'changes')::text AS changes FROM decision_event WHERE position = $1::bigint`,
    [position],
  );
  const text = rows[0]?.changes;
  return text === null || text === undefined ? null : JSON.parse(text);
}
