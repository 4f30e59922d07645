/**
 * Figure 7 — memory of `msgx start` (role all, child process `node bin/msgx.js start`, MariaDB
 * mailbox, NDJSON sink) holding 10,000 flights after a day's traffic: started on the week fixture
 * (just over 200k logged decisions, read model rebuilt, outbox at the head), then the rest of the
 * last day's traffic — 5,000 FLOPs — written to CMINMSGS and processed until nothing is pending
 * anywhere (inbox, projections, outbox). RSS (VmRSS) is read from /proc after that; the peak
 * (VmHWM) and the child's own V8 heap numbers (its /metrics) are reported too.
 * Baseline: the RSS of the same `msgx start` on an empty migrated database, idle after start.
 *
 * A second run on a copy of the week does the same with NODE_OPTIONS=--max-old-space-size=256
 * (V8's old-generation limit; by default V8 sizes it from the machine's memory, here ~4 GB), to
 * tell live memory from heap V8 simply has not given back.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { loadFlights } from '../../src/projections/loadFlights.ts';
import { startMsgx, type Child } from '../harness/child.ts';
import { insertMany } from '../harness/cminmsgs.ts';
import { cloneBenchPg, createBenchMysql, createBenchPg, type BenchPg } from '../harness/databases.ts';
import { dayLogWithReadModel, type DayLog } from '../harness/dayLog.ts';
import { row, type Figure, type FigureResult } from '../harness/figure.ts';
import { request, target } from '../harness/httpLoad.ts';
import { progress } from '../harness/progress.ts';
import { nowMs, pause, round } from '../harness/stats.ts';
import { waitUntil } from '../harness/waitUntil.ts';

const SETTLE_MS = 3000;
const CAPPED_NODE_OPTIONS = '--max-old-space-size=256';

/** The child's V8 heap from its own /metrics (prom-client's default process metrics), in MB. */
async function heapOf(child: Child): Promise<Record<string, number>> {
  const a = await request(target(child.port, 1), 'GET', '/metrics');
  const pick = (name: string) => {
    const m = new RegExp(`^msgx_process_${name} (\\S+)$`, 'm').exec(a.body);
    return m ? round(Number(m[1]) / 2 ** 20) : NaN;
  };
  return { heapUsedMb: pick('nodejs_heap_size_used_bytes'), heapTotalMb: pick('nodejs_heap_size_total_bytes'), externalMb: pick('nodejs_external_memory_bytes') };
}

async function emptyBaseline(): Promise<{ rssMb: number; peakMb: number; heap: Record<string, number> }> {
  const my = await createBenchMysql('memempty');
  const db = await createBenchPg('memempty');
  const child = await startMsgx('memempty', [], { MSGX_DATABASE_URL: db.url, MSGX_MAILBOX_MYSQL_URL: my.url });
  try {
    await pause(SETTLE_MS);
    return { ...(await child.memory()), heap: await heapOf(child) };
  } finally {
    await child.stop();
    await db.drop();
    await my.drop();
  }
}

/**
 * Heap held by one in-memory fold of every flight (what the pump's write model and the outbox
 * feeder each keep), measured here: flights loaded from the read model, heap after GC before/after.
 */
async function oneFoldHeapMb(url: string): Promise<{ mb: number; flights: number }> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const pool = new pg.Pool({ connectionString: url, max: 1, application_name: 'msgx-bench-probe' });
  try {
    const { rows } = await pool.query<{ flid: string }>('SELECT flid::text AS flid FROM flight_schd');
    gc();
    const before = process.memoryUsage().heapUsed;
    const flights = await loadFlights(pool, rows.map((r) => r.flid));
    gc();
    const mb = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    return { mb, flights: flights.size };
  } finally {
    await pool.end();
  }
}

interface Drain {
  ingested: number;
  backlog: number;
  head: string;
  flights: string;
  outbox: string;
  pendingDeliveries: number;
}

interface Loaded {
  rssMb: number;
  peakMb: number;
  liveFlights: number;
  details: Record<string, unknown>;
}

/** `msgx start` on `db` (a week), then the live traffic until everything is delivered. */
async function loadedRun(log: DayLog, db: BenchPg, label: string, env: Record<string, string>): Promise<Loaded> {
  const my = await createBenchMysql(label);
  const probe = new pg.Pool({ connectionString: db.url, max: 2, application_name: 'msgx-bench-probe' });
  try {
    // CMINMSGS ids above the fixture's message ids (the log already holds msg_id 1…N).
    await my.pool.query(`ALTER TABLE CMINMSGS AUTO_INCREMENT = ${Number(log.headPosition) + 1_000_000}`);
    progress(`memory: msgx start on the week (${log.events} events, ${log.flights} flights)${env.NODE_OPTIONS ? ` with NODE_OPTIONS=${env.NODE_OPTIONS}` : ''}`);
    const t0 = nowMs();
    const child = await startMsgx(label, [], { MSGX_DATABASE_URL: db.url, MSGX_MAILBOX_MYSQL_URL: my.url, ...env });
    let sampler: NodeJS.Timeout | undefined;
    try {
      const startSeconds = (nowMs() - t0) / 1000;
      const afterStart = await child.memory();
      let peakSampled = afterStart.rssMb;
      sampler = setInterval(() => {
        void child.memory().then((m) => (peakSampled = Math.max(peakSampled, m.rssMb)), () => undefined);
      }, 250);
      progress(`memory: started in ${startSeconds.toFixed(1)} s (RSS ${afterStart.rssMb.toFixed(0)} MB); ${log.liveTraffic.length} live messages`);
      const t1 = nowMs();
      await insertMany(my.pool, log.liveTraffic);
      let last: Drain | undefined;
      await waitUntil(
        async () => {
          const { rows } = await probe.query<Drain>(
            `SELECT (SELECT count(*)::int FROM proc_state) AS ingested,
                    (SELECT count(*)::int FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS backlog,
                    (SELECT last_position::text FROM pipeline_lock WHERE id = 1) AS head,
                    (SELECT position::text FROM projection_checkpoint WHERE name = 'flights') AS flights,
                    (SELECT position::text FROM projection_checkpoint WHERE name = 'outbox') AS outbox,
                    (SELECT count(*)::int FROM msg_event WHERE state = 'PENDING') AS "pendingDeliveries"`,
          );
          last = rows[0]!;
          return last.ingested >= log.liveTraffic.length && last.backlog === 0 && last.flights === last.head && last.outbox === last.head && last.pendingDeliveries === 0;
        },
        { intervalMs: 500, timeoutMs: 600_000, what: 'the live traffic processed and delivered' },
      );
      const trafficSeconds = (nowMs() - t1) / 1000;
      await pause(SETTLE_MS);
      const after = await child.memory();
      const heap = await heapOf(child);
      const { rows } = await probe.query<{ n: number }>('SELECT count(*)::int AS n FROM flight_schd WHERE NOT deleted');
      return {
        rssMb: after.rssMb,
        peakMb: after.peakMb,
        liveFlights: rows[0]!.n,
        details: {
          nodeOptions: env.NODE_OPTIONS ?? null,
          startSeconds: round(startSeconds, 1),
          trafficSeconds: round(trafficSeconds, 1),
          rssAfterStartMb: round(afterStart.rssMb),
          rssSampledPeakMb: round(peakSampled),
          rssAfterTrafficMb: round(after.rssMb),
          peakMb: round(after.peakMb),
          heapAfterTraffic: heap,
          finalPipeline: last,
          childLog: child.logFile,
        },
      };
    } finally {
      clearInterval(sampler);
      await child.stop();
    }
  } finally {
    await probe.end();
    await my.drop();
  }
}

export const memoryFigure: Figure = {
  id: 7,
  name: 'memory',
  title: 'memory of msgx start, 10,000 flights',
  async run(): Promise<FigureResult> {
    progress('memory: baseline (msgx start on an empty database)');
    const base = await emptyBaseline();

    const log = await dayLogWithReadModel();
    const fold = await oneFoldHeapMb(log.db.url);
    const copy = await cloneBenchPg(log.db, 'weekcopy');
    try {
      const plain = await loadedRun(log, log.db, 'mem', {});
      // The capped run is a comparison: when it fails (on a machine loaded so much that the child
      // loses its writer lock), the figure still reports the default run, and why the other failed.
      const capped = await loadedRun(log, copy, 'memcap', { NODE_OPTIONS: CAPPED_NODE_OPTIONS }).catch((err: unknown) => {
        progress(`memory: the capped run failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        return { rssMb: NaN, peakMb: NaN, liveFlights: NaN, details: { failed: err instanceof Error ? err.message.slice(0, 2000) : String(err) } };
      });
      const baseline = { value: base.rssMb, unit: 'MB', what: 'msgx start, empty database' };
      const flights = `${fold.flights.toLocaleString('en-US')} flights (${plain.liveFlights.toLocaleString('en-US')} not deleted)`;
      return {
        rows: [
          row(`RSS, ${flights}, after traffic`, { value: plain.rssMb, unit: 'MB' }, baseline, 'lower', { text: '≤ 300 MB', met: plain.rssMb <= 300 }),
          row('peak RSS (VmHWM)', { value: plain.peakMb, unit: 'MB' }, baseline, 'lower'),
          ...(Number.isNaN(capped.rssMb) ? [] : [
            row(`RSS after traffic, ${CAPPED_NODE_OPTIONS}`, { value: capped.rssMb, unit: 'MB' }, baseline, 'lower'),
            row(`peak RSS, ${CAPPED_NODE_OPTIONS}`, { value: capped.peakMb, unit: 'MB' }, baseline, 'lower'),
          ]),
        ],
        details: {
          logEvents: log.events,
          liveMessages: log.liveTraffic.length,
          oneFoldHeapMb: round(fold.mb),
          oneFoldFlights: fold.flights,
          baselineMb: { rss: round(base.rssMb), peak: round(base.peakMb), ...base.heap },
          default: plain.details,
          capped: capped.details,
        },
      };
    } finally {
      await copy.drop();
    }
  },
};
