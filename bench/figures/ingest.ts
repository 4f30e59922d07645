/**
 * Figure 2 — ingest: MariaDB CMINMSGS → inbox_message + proc_state(PENDING), rows/s.
 *
 * msgx: the ingest service's poll (createIngest(rt).pollOnce(), MSGX_INGEST_BATCH = 500 as by
 * default), called back to back as the service loop does after a full batch, until the 20,000
 * generated rows are copied.
 * Baseline: a plain copy loop over the same rows and columns — SELECT a batch of 500 from CMINMSGS
 * by id (id, XML, received), then one autocommit INSERT … SELECT FROM unnest into a table of
 * inbox_message's shape (the columns msgx writes there). No proc_state, cursor, gaps or budget:
 * those are msgx's own cost. The loop into a 3-column table that served until 2026-12-02 runs
 * too, as a second row.
 * Each round: both loops, then msgx (fresh tables / database each time); MSGX_BENCH_INGEST_ROUNDS
 * rounds (default 3), means reported, the per-round ratios in the details.
 */
import pg from 'pg';
import { createIngest } from '../../src/write/ingest/ingestService.ts';
import type mysql from 'mysql2/promise';
import { generateDay } from '../generate.ts';
import { BENCH_TZ, withBenchRuntime } from '../harness/benchRuntime.ts';
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

const ROUNDS = Number(process.env.MSGX_BENCH_INGEST_ROUNDS ?? 3);

/**
 * The target of a baseline copy loop. `inbox`: a table of inbox_message's shape (`LIKE
 * inbox_message INCLUDING ALL`: the same columns, defaults, constraints and primary key), written
 * with the columns msgx writes there — msg_id, source, received_at (the airport-local DATETIME as
 * an instant, converted in SQL), ingested_at, raw_xml; nul_replaced by its default. `plain`: the
 * loop's target until 2026-12-02, (id, received_at timestamp, raw_xml), kept for comparison.
 */
export type CopyTarget = 'inbox' | 'plain';

export async function copyLoop(
  my: mysql.Pool,
  c: pg.Client,
  database: string,
  table: string,
  target: CopyTarget = 'inbox',
): Promise<{ rows: number; seconds: number; cpu: { nodeSeconds: number; postgresSeconds: number } }> {
  await c.query(
    target === 'inbox'
      ? `CREATE TABLE ${table} (LIKE inbox_message INCLUDING ALL)`
      : `CREATE TABLE ${table} (id bigint PRIMARY KEY, received_at timestamp, raw_xml text NOT NULL)`,
  );
  const insert =
    target === 'inbox'
      ? `INSERT INTO ${table} (msg_id, source, received_at, ingested_at, raw_xml)
         SELECT u.id, 'CMINMSGS', u.received AT TIME ZONE $4, $5, u.xml FROM unnest($1::bigint[], $2::timestamp[], $3::text[]) AS u(id, received, xml)`
      : `INSERT INTO ${table} (id, received_at, raw_xml) SELECT * FROM unnest($1::bigint[], $2::timestamp[], $3::text[])`;
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
    const values: unknown[] = [rows.map((r) => r.id), rows.map((r) => r.received), rows.map((r) => r.xml)];
    await c.query(insert, target === 'inbox' ? [...values, BENCH_TZ, new Date()] : values);
    copied += rows.length;
    after = rows[rows.length - 1]!.id;
    if (rows.length < BATCH) break;
  }
  const seconds = (nowMs() - t0) / 1000;
  return { rows: copied, seconds, cpu: await cpuSince(c, database, cpu0) };
}

/** msgx's ingest of all of CMINMSGS into a fresh database: polls back to back, as the service loop does after a full batch. */
export function measureIngest(myUrl: string, expected: number) {
  return withBenchRuntime('ingest', { MSGX_MAILBOX_MYSQL_URL: myUrl, MSGX_INGEST_BATCH: String(BATCH) }, 4, async (rt, db) => {
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
  });
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
      const plain: number[] = [];
      const baselineCpu: { nodeSeconds: number; postgresSeconds: number }[] = [];
      const plainCpu: { nodeSeconds: number; postgresSeconds: number }[] = [];
      const msgx: Awaited<ReturnType<typeof measureIngest>>[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        progress(`ingest: baseline copy loops (${round + 1}/${ROUNDS})`);
        const b = await copyLoop(my.pool, c, base.name, `bench_copy_${round}`, 'inbox');
        const p = await copyLoop(my.pool, c, base.name, `bench_plain_${round}`, 'plain');
        for (const x of [b, p]) if (x.rows !== xmls.length) throw new Error(`baseline copied ${x.rows}, expected ${xmls.length}`);
        baseline.push(b.seconds);
        baselineCpu.push(b.cpu);
        plain.push(p.seconds);
        plainCpu.push(p.cpu);
        progress(`ingest: msgx ingest (${round + 1}/${ROUNDS})`);
        msgx.push(await measureIngest(my.url, xmls.length));
      }
      const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const rate = xmls.length / mean(msgx.map((m) => m.seconds));
      const baseRate = xmls.length / mean(baseline);
      const plainRate = xmls.length / mean(plain);
      return {
        rows: [
          row(
            'rows/s',
            { value: rate, unit: 'rows/s' },
            { value: baseRate, unit: 'rows/s', what: 'plain SELECT batch → INSERT … unnest loop into a table of inbox_message\'s shape' },
            'higher',
            { text: '≥ 0.6×', met: rate / baseRate >= 0.6 },
          ),
          row('rows/s vs the 3-column loop (before 2026-12-02)', { value: rate, unit: 'rows/s' }, { value: plainRate, unit: 'rows/s', what: 'same loop into (id, received_at timestamp, raw_xml)' }, 'higher'),
        ],
        details: {
          rows: xmls.length,
          batch: BATCH,
          rounds: ROUNDS,
          polls: msgx[0]!.polls,
          averageMessageBytes: Math.round(bytes / xmls.length),
          msgxSeconds: msgx.map((m) => round(m.seconds, 2)),
          baselineSeconds: baseline.map((s) => round(s, 2)),
          plainLoopSeconds: plain.map((s) => round(s, 2)),
          // Per round, msgx against the loop of the same round (turns: inbox-shaped loop, 3-column loop, msgx).
          ratiosPerRound: msgx.map((m, i) => round(baseline[i]! / m.seconds, 2)),
          postgresStatementsByTime: msgx.at(-1)!.statements,
          // CPU seconds of this process and of the database's PostgreSQL backends (MariaDB's is not counted).
          cpuSeconds: { msgx: msgx.map((m) => roundCpu(m.cpu)), baseline: baselineCpu.map(roundCpu), plainLoop: plainCpu.map(roundCpu) },
        },
      };
    } finally {
      await c.end().catch(() => undefined);
      await base.drop();
      await my.drop();
    }
  },
};
