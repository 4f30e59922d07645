/**
 * Figure 2 — ingest: MariaDB CMINMSGS → inbox_message + proc_state(PENDING), rows/s.
 *
 * msgx: the ingest service's poll (createIngest(rt).pollOnce(), MSGX_INGEST_BATCH = 500 as by
 * default), called back to back as the service loop does after a full batch, until the 20,000
 * generated rows are copied.
 * Baseline: a plain copy loop over the same rows — SELECT a batch of 500 from CMINMSGS by id, then
 * one INSERT … SELECT FROM unnest into a PostgreSQL table of (id, received_at, raw_xml).
 */
import pg from 'pg';
import { createIngest } from '../../src/write/ingest/ingestService.ts';
import type mysql from 'mysql2/promise';
import { generateDay } from '../generate.ts';
import { openBenchRuntime } from '../harness/benchRuntime.ts';
import { insertMany } from '../harness/cminmsgs.ts';
import { createBenchMysql, createBenchPg } from '../harness/databases.ts';
import { row, type Figure, type FigureResult } from '../harness/figure.ts';
import { timeStatements } from '../harness/statementTimer.ts';
import { progress } from '../harness/progress.ts';
import { nowMs, round } from '../harness/stats.ts';

const ROWS = 20_000;
const BATCH = 500;

interface CminRow extends mysql.RowDataPacket {
  id: string;
  xml: string;
  received: string | null;
}

async function copyLoop(my: mysql.Pool, c: pg.Client): Promise<{ rows: number; seconds: number }> {
  await c.query('CREATE TABLE bench_copy (id bigint PRIMARY KEY, received_at timestamp, raw_xml text NOT NULL)');
  const t0 = nowMs();
  let after = '0';
  let copied = 0;
  for (;;) {
    const [rows] = await my.query<CminRow[]>(
      'SELECT CMINMSGS_ID AS id, CMINMSGS_CLOB_MSG AS xml, CMINMSGS_DATE_RECEIVED AS received FROM CMINMSGS WHERE CMINMSGS_ID > ? ORDER BY CMINMSGS_ID LIMIT ?',
      [after, BATCH],
    );
    if (rows.length === 0) break;
    await c.query('INSERT INTO bench_copy (id, received_at, raw_xml) SELECT * FROM unnest($1::bigint[], $2::timestamp[], $3::text[])', [
      rows.map((r) => r.id),
      rows.map((r) => r.received),
      rows.map((r) => r.xml),
    ]);
    copied += rows.length;
    after = rows[rows.length - 1]!.id;
    if (rows.length < BATCH) break;
  }
  return { rows: copied, seconds: (nowMs() - t0) / 1000 };
}

export const ingestFigure: Figure = {
  id: 2,
  name: 'ingest',
  title: 'ingest CMINMSGS → proc_state',
  async run(): Promise<FigureResult> {
    const day = generateDay({ seed: 21, flights: 1000, flopsPerFlight: ROWS / 1000, fullLists: true });
    const xmls = day.messages.slice(1, ROWS + 1);
    const my = await createBenchMysql('ingest');
    const db = await createBenchPg('ingest');
    const rt = await openBenchRuntime(db.url, { MSGX_MAILBOX_MYSQL_URL: my.url, MSGX_INGEST_BATCH: String(BATCH) }, 4);
    const c = new pg.Client({ connectionString: db.url, application_name: 'msgx-bench-baseline' });
    try {
      await c.connect();
      progress(`ingest: inserting ${xmls.length} rows into CMINMSGS`);
      await insertMany(my.pool, xmls);
      const bytes = xmls.reduce((n, x) => n + Buffer.byteLength(x), 0);

      progress('ingest: baseline copy loop');
      const base = await copyLoop(my.pool, c);

      progress('ingest: msgx ingest');
      const statements = timeStatements(rt.pool);
      const ingest = createIngest(rt);
      const t0 = nowMs();
      let polls = 0;
      for (;;) {
        const r = await ingest.pollOnce();
        polls++;
        if (r.read < BATCH) break;
      }
      const seconds = (nowMs() - t0) / 1000;
      const { rows } = await rt.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM proc_state WHERE state = 'PENDING'");
      const copied = rows[0]!.n;
      if (copied !== xmls.length || base.rows !== xmls.length) {
        throw new Error(`ingest copied ${copied}, baseline ${base.rows}, expected ${xmls.length}`);
      }
      const rate = copied / seconds;
      const baseRate = base.rows / base.seconds;
      return {
        rows: [row('rows/s', { value: rate, unit: 'rows/s' }, { value: baseRate, unit: 'rows/s', what: 'plain SELECT batch → INSERT … unnest loop' }, 'higher')],
        details: {
          rows: copied,
          batch: BATCH,
          polls,
          averageMessageBytes: Math.round(bytes / xmls.length),
          msgxSeconds: round(seconds, 2),
          baselineSeconds: round(base.seconds, 2),
          postgresStatementsByTime: statements.top(10),
        },
      };
    } finally {
      await c.end().catch(() => undefined);
      await rt.close();
      await db.drop();
      await my.drop();
    }
  },
};
