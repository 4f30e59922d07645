/**
 * Figure 2 — ingest: MariaDB CMINMSGS → inbox_message + proc_state(PENDING), rows/s.
 *
 * msgx: the ingest service's poll (createIngest(rt).pollOnce(), MSGX_INGEST_BATCH = 500 as by
 * default), called back to back as the service loop does after a full batch, until the 20,000
 * generated rows are copied.
 * Baseline: a plain copy loop over the same rows — SELECT a batch of 500 from CMINMSGS by id, then
 * one INSERT … SELECT FROM unnest into a PostgreSQL table of (id, received_at, raw_xml).
 * Baseline and msgx take turns, twice each (fresh tables / database each time); means are reported.
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
import { cpuNow, cpuSince } from '../harness/cpuTime.ts';

const roundCpu = (c: { nodeSeconds: number; postgresSeconds: number }) => ({ node: round(c.nodeSeconds, 2), postgres: round(c.postgresSeconds, 2) });
import { progress } from '../harness/progress.ts';
import { nowMs, round } from '../harness/stats.ts';

export const ROWS = 20_000;
const BATCH = 500;

interface CminRow extends mysql.RowDataPacket {
  id: string;
  xml: string;
  received: string | null;
}

const ROUNDS = 2;

export async function copyLoop(my: mysql.Pool, c: pg.Client, database: string, table: string): Promise<{ rows: number; seconds: number; cpu: { nodeSeconds: number; postgresSeconds: number } }> {
  await c.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, received_at timestamp, raw_xml text NOT NULL)`);
  const cpu0 = await cpuNow(c, database);
  const t0 = nowMs();
  let after = '0';
  let copied = 0;
  for (;;) {
    const [rows] = await my.query<CminRow[]>(
      'SELECT CMINMSGS_ID AS id, CMINMSGS_CLOB_MSG AS xml, CMINMSGS_DATE_RECEIVED AS received FROM CMINMSGS WHERE CMINMSGS_ID > ? ORDER BY CMINMSGS_ID LIMIT ?',
      [after, BATCH],
    );
    if (rows.length === 0) break;
    await c.query(`INSERT INTO ${table} (id, received_at, raw_xml) SELECT * FROM unnest($1::bigint[], $2::timestamp[], $3::text[])`, [
      rows.map((r) => r.id),
      rows.map((r) => r.received),
      rows.map((r) => r.xml),
    ]);
    copied += rows.length;
    after = rows[rows.length - 1]!.id;
    if (rows.length < BATCH) break;
  }
  const seconds = (nowMs() - t0) / 1000;
  return { rows: copied, seconds, cpu: await cpuSince(c, database, cpu0) };
}

/** msgx's ingest of all of CMINMSGS into a fresh database: polls back to back, as the service loop does after a full batch. */
export async function measureIngest(myUrl: string, expected: number) {
  const db = await createBenchPg('ingest');
  const rt = await openBenchRuntime(db.url, { MSGX_MAILBOX_MYSQL_URL: myUrl, MSGX_INGEST_BATCH: String(BATCH) }, 4);
  try {
    const statements = timeStatements(rt.pool);
    const ingest = createIngest(rt);
    const cpu0 = await cpuNow(rt.pool, db.name);
    const t0 = nowMs();
    let polls = 0;
    for (;;) {
      const r = await ingest.pollOnce();
      polls++;
      if (r.read < BATCH) break;
    }
    const seconds = (nowMs() - t0) / 1000;
    const cpu = await cpuSince(rt.pool, db.name, cpu0);
    const { rows } = await rt.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM proc_state WHERE state = 'PENDING'");
    if (rows[0]!.n !== expected) throw new Error(`ingest copied ${rows[0]!.n}, expected ${expected}`);
    return { seconds, polls, cpu, statements: statements.top(10) };
  } finally {
    await rt.close();
    await db.drop();
  }
}

export const ingestFigure: Figure = {
  id: 2,
  name: 'ingest',
  title: 'ingest CMINMSGS → proc_state',
  async run(): Promise<FigureResult> {
    const day = generateDay({ seed: 21, flights: 1000, flopsPerFlight: ROWS / 1000, fullLists: true });
    const xmls = day.messages.slice(1, ROWS + 1);
    const my = await createBenchMysql('ingest');
    const base = await createBenchPg('ingestbase');
    const c = new pg.Client({ connectionString: base.url, application_name: 'msgx-bench-baseline' });
    try {
      await c.connect();
      progress(`ingest: inserting ${xmls.length} rows into CMINMSGS`);
      await insertMany(my.pool, xmls);
      const bytes = xmls.reduce((n, x) => n + Buffer.byteLength(x), 0);
      const baseline: number[] = [];
      const baselineCpu: { nodeSeconds: number; postgresSeconds: number }[] = [];
      const msgx: Awaited<ReturnType<typeof measureIngest>>[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        progress(`ingest: baseline copy loop (${round + 1}/${ROUNDS})`);
        const b = await copyLoop(my.pool, c, base.name, `bench_copy_${round}`);
        if (b.rows !== xmls.length) throw new Error(`baseline copied ${b.rows}, expected ${xmls.length}`);
        baseline.push(b.seconds);
        baselineCpu.push(b.cpu);
        progress(`ingest: msgx ingest (${round + 1}/${ROUNDS})`);
        msgx.push(await measureIngest(my.url, xmls.length));
      }
      const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const rate = xmls.length / mean(msgx.map((m) => m.seconds));
      const baseRate = xmls.length / mean(baseline);
      return {
        rows: [row('rows/s', { value: rate, unit: 'rows/s' }, { value: baseRate, unit: 'rows/s', what: 'plain SELECT batch → INSERT … unnest loop' }, 'higher')],
        details: {
          rows: xmls.length,
          batch: BATCH,
          polls: msgx[0]!.polls,
          averageMessageBytes: Math.round(bytes / xmls.length),
          msgxSeconds: msgx.map((m) => round(m.seconds, 2)),
          baselineSeconds: baseline.map((s) => round(s, 2)),
          postgresStatementsByTime: msgx.at(-1)!.statements,
          // CPU seconds of this process and of the database's PostgreSQL backends (MariaDB's is not counted).
          cpuSeconds: { msgx: msgx.map((m) => roundCpu(m.cpu)), baseline: baselineCpu.map(roundCpu) },
        },
      };
    } finally {
      await c.end().catch(() => undefined);
      await base.drop();
      await my.drop();
    }
  },
};
