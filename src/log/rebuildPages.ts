/**
 * The rebuild's read of the log (docs/projections.md "Rebuild", step 3): a page of decisions as ONE
 * JSON text that PostgreSQL builds (`string_agg`) and node parses with one `JSON.parse`, instead of
 * a row per decision with its changes as a jsonb column. node-postgres makes a row object, a string
 * per column and a JSON.parse per row; for the 205,005 decisions of the week that cost about as
 * much node CPU as parsing the changes themselves. PostgreSQL also reads `payload->'changes'` once
 * per decision here (readDecisionsAfter's "is it big" test reads it three times).
 *
 * The events are those readDecisionsAfter gives, value for value: the same columns, the same UTC
 * text of recorded_at, the changes expanded by the same expandChanges. A decision whose stored
 * payload is over BIG_BYTES is left out of the page's text and read on its own (a plan of up to
 * 255 MB of jsonb); the small payloads of one page's text are bounded by PAGE_BYTES, so the text
 * stays far under PostgreSQL's 1 GB limit for one value.
 *
 * What PostgreSQL spends on a page (the week in pages of 5,000: 1.3–1.4 CPU-s against 1.9–2.1 for
 * the first form of this query): the page is read by the primary key in position order and the
 * window and the aggregate take the rows in that order, so nothing is sorted (a CTE read twice, and
 * `string_agg(… ORDER BY position)`, each sorted every page with its payloads); recorded_at goes out
 * as milliseconds since 1970 (`to_char` cost ~0.3 CPU-s over the week), and node prints it as
 * Date#toISOString does, which is to_char's text (milliseconds truncated, as to_char's `MS` has
 * them). The aggregate's input order is what the plan gives, not something SQL promises: the
 * entries are checked to ascend (and sorted when they do not).
 */
import type { Change } from '../domain/changes.ts';
import { expandChanges } from '../domain/compactChange.ts';
import { decisionKindAt } from '../domain/decisionPayload.ts';
import type { Queryable } from '../platform/db.ts';
import type { DecisionEvent } from './readDecisions.ts';

/** A payload stored larger than this (pg_column_size: compressed bytes) is read on its own. */
const BIG_BYTES = 1 << 20;
/** Stored bytes of the small payloads one page's text may hold (at least one decision is always read). */
const PAGE_BYTES = 16 << 20;

/** One decision in the page's text: position, msg id, kind, recorded_at (milliseconds since 1970), changes — or 0: read apart. */
type PageEntry = [string, string | null, string, number, Change[] | null | 0];

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

/** Up to `limit` events after position `after`, ascending, as readDecisionsAfter has them. */
export async function readRebuildPage(q: Queryable, after: string, limit: number, bounds: PageBounds = BOUNDS): Promise<RebuildPage> {
  const { rows } = await q.query<{ got: number; page: string | null }>(
    `SELECT count(*)::int AS got,
            '[' || string_agg('["' || position || '",' || COALESCE('"' || msg_id || '"', 'null') || ',' || to_json(kind)::text || ','
                   || floor(extract(epoch FROM recorded_at) * 1000)::bigint || ','
                   || CASE WHEN size > $3 THEN '0' ELSE COALESCE((payload->'changes')::text, 'null') END || ']', ',')
                 FILTER (WHERE before < $4 OR n = 1) || ']' AS page
       FROM (SELECT *, sum(CASE WHEN size > $3 THEN 0 ELSE size END) OVER w - CASE WHEN size > $3 THEN 0 ELSE size END AS before,
                    row_number() OVER w AS n
               FROM (SELECT position, msg_id, kind, recorded_at, payload, pg_column_size(payload) AS size
                       FROM decision_event WHERE position > $1::bigint ORDER BY position LIMIT $2) d
             WINDOW w AS (ORDER BY position)) s`,
    [after, limit, bounds.bigBytes, bounds.pageBytes],
  );
  const { got, page } = rows[0] ?? { got: 0, page: null };
  const entries: PageEntry[] = page === null ? [] : (JSON.parse(page) as PageEntry[]);
  if (!ascending(entries)) entries.sort((a, b) => comparePositions(a[0], b[0]));
  const events = new Array<DecisionEvent>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const [position, msgId, kind, recordedMs, read] = entries[i]!;
    const changes = read === 0 ? await changesApart(q, position) : read;
    events[i] = {
      position, msgId, kind: decisionKindAt(position, kind), changes: Array.isArray(changes) ? expandChanges(changes) : null,
      recordedAt: new Date(recordedMs).toISOString(),
    };
  }
  return { events, more: got === limit || entries.length < got };
}

/** Positions are decimal texts without leading zeros: the longer is the larger, else the text order. */
function comparePositions(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

function ascending(entries: readonly PageEntry[]): boolean {
  for (let i = 1; i < entries.length; i++) if (comparePositions(entries[i - 1]![0], entries[i]![0]) >= 0) return false;
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
