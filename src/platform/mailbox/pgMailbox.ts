import type pg from 'pg';
import { localDateTime, localDateTimeReader } from '../localTime.ts';
import { batchOfRows } from './inboxBatch.ts';
import type { BackfillItem, InboxRow, Mailbox, OutboundRow } from './port.ts';

/**
 * The shared mailbox emulated in the own PostgreSQL (schema `mailbox`), for the embedded default.
 * Columns and semantics mirror the MySQL tables, including wall-clock `timestamp` columns.
 */
export function createPgMailbox(pool: pg.Pool, timeZone: string): Mailbox {
  const select =
    "SELECT cminmsgs_id AS id, cminmsgs_clob_msg AS xml, to_char(cminmsgs_date_received, 'YYYY-MM-DD HH24:MI:SS') AS received FROM mailbox.cminmsgs";
  const received = localDateTimeReader(timeZone);
  const toRow = (r: { id: string; xml: string; received: string | null }): InboxRow => ({
    id: r.id,
    xml: r.xml,
    receivedAt: r.received ? received(r.received) : null,
  });
  return {
    kind: 'postgres',
    async readAfter(afterId, limit) {
      const { rows } = await pool.query(`${select} WHERE cminmsgs_id > $1::bigint ORDER BY cminmsgs_id LIMIT $2`, [
        afterId,
        limit,
      ]);
      return rows.map(toRow);
    },
    async readIds(ids) {
      if (ids.length === 0) return [];
      const { rows } = await pool.query(`${select} WHERE cminmsgs_id = ANY($1::bigint[]) ORDER BY cminmsgs_id`, [ids]);
      return rows.map(toRow);
    },
    async readBatch(afterId, limit, maxBytes, spentBefore) {
      // One statement (one snapshot), as the MySQL adapter: the budget over the window in SQL.
      const { rows } = await pool.query<{ id: string; xml: string; received: string | null; bytes: number; scanned: number }>(
        `WITH w AS (SELECT cminmsgs_id AS id, COALESCE(octet_length(cminmsgs_clob_msg), 0) AS bytes
                      FROM mailbox.cminmsgs WHERE cminmsgs_id > $1::bigint ORDER BY cminmsgs_id LIMIT $2),
              s AS (SELECT id, bytes, sum(bytes) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS running FROM w)
         SELECT cminmsgs_id AS id, cminmsgs_clob_msg AS xml,
                to_char(cminmsgs_date_received, 'YYYY-MM-DD HH24:MI:SS') AS received,
                COALESCE(octet_length(cminmsgs_clob_msg), 0) AS bytes, (SELECT count(*)::int FROM w) AS scanned
           FROM mailbox.cminmsgs
          WHERE cminmsgs_id > $1::bigint
            AND cminmsgs_id <= (SELECT max(id) FROM s WHERE $3::bigint + running - bytes = 0 OR $3::bigint + running <= $4::bigint)
          ORDER BY cminmsgs_id LIMIT $2`,
        [afterId, limit, spentBefore, maxBytes],
      );
      return batchOfRows(rows, toRow, spentBefore);
    },
    async sizesOf(ids) {
      if (ids.length === 0) return [];
      const { rows } = await pool.query<{ id: string; bytes: number | null }>(
        'SELECT cminmsgs_id AS id, octet_length(cminmsgs_clob_msg) AS bytes FROM mailbox.cminmsgs WHERE cminmsgs_id = ANY($1::bigint[]) ORDER BY cminmsgs_id',
        [ids],
      );
      return rows.map((r) => ({ id: r.id, bytes: r.bytes ?? 0 }));
    },
    async countAfter(afterId, limit) {
      const { rows } = await pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM (SELECT 1 FROM mailbox.cminmsgs WHERE cminmsgs_id > $1::bigint ORDER BY cminmsgs_id LIMIT $2) t',
        [afterId, limit],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async insertInbound(xml, receivedAt) {
      const { rows } = await pool.query<{ id: string }>(
        'INSERT INTO mailbox.cminmsgs (cminmsgs_clob_msg, cminmsgs_date_received) VALUES ($1, $2::timestamp) RETURNING cminmsgs_id AS id',
        [xml, localDateTime(receivedAt, timeZone)],
      );
      return rows[0]!.id;
    },
    async backfill(items: readonly BackfillItem[]) {
      if (items.length === 0) return;
      await pool.query(
        // The mailbox server's clock (interface.md), as airport local time like the other columns.
        `UPDATE mailbox.cminmsgs m SET cminmsgs_date_processed = now() AT TIME ZONE $3, cminmsgs_status = u.status
           FROM unnest($1::bigint[], $2::text[]) AS u(id, status)
          WHERE m.cminmsgs_id = u.id`,
        [items.map((i) => i.id), items.map((i) => i.status), timeZone],
      );
    },
    async insertOutbound(row: OutboundRow) {
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO mailbox.coutmsgs (coutmsgs_clob_msg, coutmsgs_date_inserted, routingid)
         VALUES ($1, $2::timestamp, $3) RETURNING coutmsgs_id AS id`,
        [row.xml, localDateTime(row.insertedAt, timeZone), row.routingId],
      );
      return rows[0]!.id;
    },
    async ping() {
      await pool.query('SELECT 1 FROM mailbox.cminmsgs LIMIT 0');
    },
    async close() {
      // the pool belongs to the caller
    },
  };
}
