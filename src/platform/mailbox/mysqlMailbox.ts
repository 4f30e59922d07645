import mysql from 'mysql2/promise';
import { localDateTime, localDateTimeReader } from '../localTime.ts';
import { batchOfRows, fittingCount } from './inboxBatch.ts';
import type { BackfillItem, BackfillStatus, InboxBatch, InboxRow, InboxRowSize, Mailbox, OutboundRow } from './port.ts';

interface CminRow extends mysql.RowDataPacket {
  id: string;
  xml: string;
  received: string | null;
}

interface SizeRow extends mysql.RowDataPacket {
  id: string;
  bytes: string | number | null;
}

interface BatchRow extends CminRow {
  bytes: string | number;
  scanned: string | number;
}

/**
 * readBatch as one statement, so one InnoDB read view: the ids and sizes of the `limit` window
 * (index range on the primary key), the running byte sum over it (a window function), and the
 * rows up to the last id that fits — XML is read only for those. Parameters: afterId, limit (the
 * window's count), afterId, afterId, limit (the budget), spentBefore, spentBefore, maxBytes, limit.
 */
const READ_BATCH = `SELECT CMINMSGS_ID AS id, CMINMSGS_CLOB_MSG AS xml, CMINMSGS_DATE_RECEIVED AS received,
       COALESCE(LENGTH(CMINMSGS_CLOB_MSG), 0) AS bytes,
       (SELECT COUNT(*) FROM (SELECT 1 FROM CMINMSGS WHERE CMINMSGS_ID > ? ORDER BY CMINMSGS_ID LIMIT ?) k) AS scanned
  FROM CMINMSGS
 WHERE CMINMSGS_ID > ? AND CMINMSGS_ID <= (
       SELECT MAX(id) FROM (
         SELECT id, bytes, SUM(bytes) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS running
           FROM (SELECT CMINMSGS_ID AS id, COALESCE(LENGTH(CMINMSGS_CLOB_MSG), 0) AS bytes
                   FROM CMINMSGS WHERE CMINMSGS_ID > ? ORDER BY CMINMSGS_ID LIMIT ?) w) s
        WHERE ? + running - bytes = 0 OR ? + running <= ?)
 ORDER BY CMINMSGS_ID LIMIT ?`;

/**
 * The write-back of a batch (backfill): the processed time from the mailbox server's clock
 * (interface.md), so it compares with CMINMSGS_DATE_RECEIVED, and each row's status by the list
 * its id is in. Constant text: the four lists and the whole batch travel as parameters
 * (backfillParams), an empty list as `(NULL)`, which matches nothing.
 */
const BACKFILL = `UPDATE CMINMSGS SET CMINMSGS_DATE_PROCESSED = NOW(),
       CMINMSGS_STATUS = CASE WHEN CMINMSGS_ID IN (?) THEN 'PROCESSED' WHEN CMINMSGS_ID IN (?) THEN 'SKIPPED'
                              WHEN CMINMSGS_ID IN (?) THEN 'DEAD' WHEN CMINMSGS_ID IN (?) THEN 'PARKED' END
 WHERE CMINMSGS_ID IN (?)`;

const BACKFILL_ORDER: readonly BackfillStatus[] = ['PROCESSED', 'SKIPPED', 'DEAD', 'PARKED'];

/** BACKFILL's parameters: the ids of each status in BACKFILL_ORDER (`[null]` for none), then every id. */
export function backfillParams(items: readonly BackfillItem[]): (string | null)[][] {
  const lists = BACKFILL_ORDER.map((status) => items.filter((it) => it.status === status).map((it) => it.id));
  return lists.map((ids): (string | null)[] => (ids.length > 0 ? ids : [null])).concat([items.map((it) => it.id)]);
}

const toSize = (r: SizeRow): InboxRowSize => ({ id: String(r.id), bytes: Number(r.bytes ?? 0) });

/** MySQL's and MariaDB's "syntax error": what a server without window functions (MySQL < 8.0, MariaDB < 10.2) says to READ_BATCH. */
const ER_PARSE_ERROR = 1064;

/**
 * readBatch in two statements, for a server without window functions: the window's ids and sizes,
 * the budget applied here (the same rule as READ_BATCH), then the chosen rows by id.
 */
export async function readBatchInSteps(
  sizes: readonly InboxRowSize[],
  readIds: (ids: readonly string[]) => Promise<InboxRow[]>,
  maxBytes: number,
  spentBefore: number,
): Promise<InboxBatch> {
  const chosen = sizes.slice(0, fittingCount(sizes, spentBefore, maxBytes));
  const bytes = chosen.reduce((n, s) => n + s.bytes, 0);
  return { rows: chosen.length > 0 ? await readIds(chosen.map((s) => s.id)) : [], bytes, scanned: sizes.length };
}

/**
 * Adapter for the real shared MySQL/MariaDB mailbox. DATETIME columns carry airport-local wall time.
 * BIGINT ids travel as strings (supportBigNumbers + bigNumberStrings).
 */
export function createMysqlMailbox(url: string, timeZone: string): Mailbox {
  const pool = mysql.createPool({
    uri: url,
    connectionLimit: 4,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    charset: 'utf8mb4',
    connectTimeout: 5000,
  });
  const received = localDateTimeReader(timeZone);
  const toRow = (r: CminRow): InboxRow => ({
    id: String(r.id),
    xml: r.xml,
    receivedAt: r.received ? received(r.received) : null,
  });
  const select =
    'SELECT CMINMSGS_ID AS id, CMINMSGS_CLOB_MSG AS xml, CMINMSGS_DATE_RECEIVED AS received FROM CMINMSGS';
  const readIds = async (ids: readonly string[]): Promise<InboxRow[]> => {
    if (ids.length === 0) return [];
    const [rows] = await pool.query<CminRow[]>(`${select} WHERE CMINMSGS_ID IN (?) ORDER BY CMINMSGS_ID`, [ids]);
    return rows.map(toRow);
  };
  const sizesAfter = async (afterId: string, limit: number): Promise<InboxRowSize[]> => {
    const [rows] = await pool.query<SizeRow[]>(
      'SELECT CMINMSGS_ID AS id, LENGTH(CMINMSGS_CLOB_MSG) AS bytes FROM CMINMSGS WHERE CMINMSGS_ID > ? ORDER BY CMINMSGS_ID LIMIT ?',
      [afterId, limit],
    );
    return rows.map(toSize);
  };
  // READ_BATCH needs window functions (MySQL 8.0+, MariaDB 10.2+); the shared server's version is not ours to choose.
  let windowFunctions = true;

  return {
    kind: 'mysql',
    async readAfter(afterId, limit) {
      const [rows] = await pool.query<CminRow[]>(`${select} WHERE CMINMSGS_ID > ? ORDER BY CMINMSGS_ID LIMIT ?`, [
        afterId,
        limit,
      ]);
      return rows.map(toRow);
    },
    readIds,
    async readBatch(afterId, limit, maxBytes, spentBefore) {
      if (windowFunctions) {
        try {
          const [rows] = await pool.query<BatchRow[]>(READ_BATCH, [afterId, limit, afterId, afterId, limit, spentBefore, spentBefore, maxBytes, limit]);
          return batchOfRows(rows, toRow, spentBefore);
        } catch (err) {
          if ((err as { errno?: number }).errno !== ER_PARSE_ERROR) throw err;
          windowFunctions = false; // an older server: two statements from now on
        }
      }
      return readBatchInSteps(await sizesAfter(afterId, limit), readIds, maxBytes, spentBefore);
    },
    async sizesOf(ids) {
      if (ids.length === 0) return [];
      const [rows] = await pool.query<SizeRow[]>(
        'SELECT CMINMSGS_ID AS id, LENGTH(CMINMSGS_CLOB_MSG) AS bytes FROM CMINMSGS WHERE CMINMSGS_ID IN (?) ORDER BY CMINMSGS_ID',
        [ids],
      );
      return rows.map(toSize);
    },
    async countAfter(afterId, limit) {
      const [rows] = await pool.query<(mysql.RowDataPacket & { n: string | number })[]>(
        'SELECT COUNT(*) AS n FROM (SELECT 1 FROM CMINMSGS WHERE CMINMSGS_ID > ? ORDER BY CMINMSGS_ID LIMIT ?) t',
        [afterId, limit],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async insertInbound(xml, receivedAt) {
      const [res] = await pool.execute<mysql.ResultSetHeader>(
        'INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, ?)',
        [xml, localDateTime(receivedAt, timeZone)],
      );
      return String(res.insertId);
    },
    async backfill(items: readonly BackfillItem[]) {
      if (items.length === 0) return;
      // One statement for the whole batch (one round trip, one commit, atomic): under load each
      // round trip waits for both processes to be scheduled, and a statement per row did not keep
      // up with the pump (docs/scaling.md "Restart, takeover and stop").
      await pool.query(BACKFILL, backfillParams(items));
    },
    async insertOutbound(row: OutboundRow) {
      const [res] = await pool.execute<mysql.ResultSetHeader>(
        'INSERT INTO COUTMSGS (COUTMSGS_CLOB_MSG, COUTMSGS_DATE_INSERTED, ROUTINGID) VALUES (?, ?, ?)',
        [row.xml, localDateTime(row.insertedAt, timeZone), row.routingId],
      );
      return String(res.insertId);
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}
