import type { PoolClient, Queryable } from '../../platform/db.ts';
import pg from 'pg';
import type { InboxRow } from '../../platform/mailbox/port.ts';

/** Read the watermark of `source`, creating the cursor row (watermark 0) on first use. */
export async function readWatermark(q: Queryable, source: string): Promise<string> {
  const read = async () => (await q.query<{ watermark: string }>('SELECT watermark FROM inbox_cursor WHERE source = $1', [source])).rows[0]?.watermark;
  const watermark = await read();
  if (watermark !== undefined) return watermark;
  await q.query('INSERT INTO inbox_cursor (source) VALUES ($1) ON CONFLICT (source) DO NOTHING', [source]);
  return (await read())!;
}

/**
 * The statement that locks the cursor row of `source` for the transaction (the watermark as
 * committed): without parameters, so that it can travel with BEGIN (withOpenedTransaction).
 */
export const lockWatermarkSql = (source: string): string => `SELECT watermark FROM inbox_cursor WHERE source = ${pg.escapeLiteral(source)} FOR UPDATE`;

/**
 * COPY_CTES' filter: a row copied before is skipped (FAST_POLL has none). Not ON CONFLICT (msg_id):
 * inbox_message is partitioned by month, so its primary key is (msg_id, ingested_at)
 * (docs/operations.md "Archive a month"); the cursor row lock serialises the copies.
 */
const SKIP_COPIED = 'WHERE NOT EXISTS (SELECT 1 FROM inbox_message e WHERE e.msg_id = u.id)';

// The copy as data-modifying CTEs: `copied` (the new rows' msg_id) and `queued` (their proc_state
// rows). Parameters: $1 the source, $2 now, $3–$6 ids, received times, XML (a JSON array of
// strings: see copyValues), whether U+0000 was replaced.
// `queued` has no ON CONFLICT: only this copy creates proc_state rows, together with their
// inbox_message row, which is never deleted — so a message new to inbox_message has none. Were
// one there all the same, the poll fails loudly (and ingest turns not ready) instead of leaving a
// copied message silently unqueued; and the speculative insertion was ~15 % of the copy's CPU.
// FAST_POLL's copy has no ON CONFLICT on inbox_message either (its rows are above the watermark,
// so new unless the cursor was rewound by hand; pollOnce.ts fastPoll falls back to this one then).
export const COPY_CTES = copyCtes('');

/** FAST_POLL's guard on the copy: only when its compare-and-set took the cursor row. */
const IF_LOCKED = 'WHERE EXISTS (SELECT 1 FROM locked)';

function copyCtes(guard: '' | typeof IF_LOCKED): string {
  const onConflict = guard === '' ? SKIP_COPIED : '';
  return `copied AS (
      INSERT INTO inbox_message (msg_id, source, received_at, ingested_at, raw_xml, nul_replaced)
      SELECT u.id, $1::text, u.received, $2::timestamptz, u.xml, u.nul
        FROM unnest($3::bigint[], $4::timestamptz[], ARRAY(SELECT x FROM json_array_elements_text($5::json) WITH ORDINALITY AS t(x, i) ORDER BY i),
                    $6::boolean[]) AS u(id, received, xml, nul)
       ${guard}
      ${onConflict}
      RETURNING msg_id),
    queued AS (
      INSERT INTO proc_state (msg_id, state, created_at, updated_at)
      SELECT msg_id, 'PENDING', $2::timestamptz, $2::timestamptz FROM copied)`;
}

const COPY = `WITH ${COPY_CTES} SELECT msg_id FROM copied`;

/**
 * Copy raw inbox rows into `inbox_message` and open a `proc_state(PENDING)` for each one that was
 * not there yet — one statement. Idempotent: a row copied before (a restart re-reading it) is
 * neither copied nor enqueued again. Returns the ids that were new.
 */
export async function copyInbox(c: PoolClient, source: string, rows: readonly InboxRow[], now: Date): Promise<string[]> {
  if (rows.length === 0) return [];
  const { rows: inserted } = await c.query<{ msg_id: string }>(COPY, copyValues(source, rows, now));
  return inserted.map((r) => r.msg_id);
}

/**
 * The common poll as ONE autocommit statement (no open gaps, no late rows, the new rows contiguous
 * after the watermark — pollOnce decides): `locked` takes the cursor row only if it still holds
 * the watermark read before ($7, a compare-and-set under the row lock: a second ingest that moved
 * it makes this statement copy nothing and move nothing); the copy and the PENDING rows as
 * COPY_CTES (same parameters $1–$6); the cursor to $8; NOTIFY $9 when rows were copied.
 */
export const FAST_POLL = `WITH locked AS (
      SELECT source FROM inbox_cursor WHERE source = $1::text AND watermark = $7::bigint FOR UPDATE),
    ${copyCtes(IF_LOCKED)},
    advanced AS (
      UPDATE inbox_cursor SET watermark = GREATEST(watermark, $8::bigint), updated_at = $2::timestamptz
       WHERE source = $1::text AND EXISTS (SELECT 1 FROM locked))
  SELECT EXISTS (SELECT 1 FROM locked) AS locked, (SELECT count(*)::int FROM copied) AS copied,
         CASE WHEN EXISTS (SELECT 1 FROM copied) THEN pg_notify($9, $8::bigint::text) END AS notified`;

/**
 * The parameters $1–$6 of COPY_CTES. Received times travel as ISO text (node-postgres' own Date
 * formatting costs more), U+0000 — which a PostgreSQL text cannot hold — as U+FFFD with a flag.
 * The XML travels as one JSON array: node-postgres writes a text[] parameter by escaping each
 * element with two regular-expression replaces in JavaScript (a 16 MiB message: ~1 s of the
 * writer's loop in one task), JSON.stringify is native (~50 ms). A lone surrogate, which JSON
 * would carry as an escape PostgreSQL refuses, becomes U+FFFD first, as the UTF-8 encoding of a
 * text parameter made it before.
 */
export function copyValues(source: string, rows: readonly InboxRow[], now: Date): unknown[] {
  const ids = new Array<string>(rows.length);
  const received = new Array<string | null>(rows.length);
  const xml = new Array<string>(rows.length);
  const nul = new Array<boolean>(rows.length);
  let lastMs = NaN;
  let lastIso = '';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    ids[i] = r.id;
    const at = r.receivedAt?.getTime();
    if (at !== undefined && at !== lastMs) {
      lastMs = at;
      lastIso = r.receivedAt!.toISOString();
    }
    received[i] = at === undefined ? null : lastIso;
    const hasNul = r.xml.includes('\u0000');
    const text = hasNul ? r.xml.replaceAll('\u0000', '\uFFFD') : r.xml;
    xml[i] = text.isWellFormed() ? text : text.toWellFormed();
    nul[i] = hasNul;
  }
  return [source, now, ids, received, JSON.stringify(xml), nul];
}
