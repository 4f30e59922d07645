/** Playing the AODB side: rows into the shared MariaDB CMINMSGS (as AODB/CIIMS write them). */
import type mysql from 'mysql2/promise';
import { localDateTime } from '../../src/platform/localTime.ts';
import { BENCH_TZ } from './benchRuntime.ts';

const ROWS_PER_STATEMENT = 500;

/** Insert `xmls` in order (multi-row statements); returns the number inserted. */
export async function insertMany(pool: mysql.Pool, xmls: readonly string[], receivedAt = new Date()): Promise<number> {
  const received = localDateTime(receivedAt, BENCH_TZ);
  for (let i = 0; i < xmls.length; i += ROWS_PER_STATEMENT) {
    const chunk = xmls.slice(i, i + ROWS_PER_STATEMENT);
    await pool.query('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES ?', [chunk.map((x) => [x, received])]);
  }
  return xmls.length;
}

/** Insert one row (autocommit); returns its CMINMSGS_ID once committed. */
export async function insertOne(pool: mysql.Pool, xml: string, receivedAt = new Date()): Promise<string> {
  const [res] = await pool.execute<mysql.ResultSetHeader>(
    'INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, ?)',
    [xml, localDateTime(receivedAt, BENCH_TZ)],
  );
  return String(res.insertId);
}
