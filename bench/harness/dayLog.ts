/**
 * The shared "busy week" fixture of figures 4, 5 and 7: five generated days of 2,000 flights each
 * (a DNLD plan with full lists, then 21 FLOPs per flight in the catalogue's mix), decided in-process
 * through the domain (weekDay.ts, two worker threads) and bulk-appended to `decision_event` — just
 * over 200k events, 10,000 live flights. The last 5,000 FLOPs of the last day are held back as
 * live traffic for the memory figure. Built once per run, lazily; the flight read model is built
 * by `ensureReadModel` (the rebuild figure does it as its measurement; others get it untimed).
 */
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { systemClock } from '../../src/platform/clock.ts';
import { createPool } from '../../src/platform/db.ts';
import { rebuildFlights, type RebuildResult } from '../../src/projections/rebuild/rebuildFlights.ts';
import { benchLogger } from './benchRuntime.ts';
import { cloneBenchPg, createBenchPg, type BenchPg } from './databases.ts';
import { progress } from './progress.ts';
import { nowMs } from './stats.ts';
import { DAYS, type DayRows } from './weekDay.ts';

const CHUNK = 5000;
const WORKERS = 2;

export interface DayLog {
  readonly db: BenchPg;
  readonly events: number;
  readonly flights: number;
  /** The board day of figure 5 (a full day of the week). */
  readonly boardDay: string;
  /** Live flids (not deleted), for flight(flid) load. */
  readonly flids: readonly string[];
  /** The rest of the last day's traffic, not in the log: CMINMSGS rows for figure 7. */
  readonly liveTraffic: readonly string[];
  readonly headPosition: string;
  readonly buildSeconds: { total: number; insert: number };
  /** Set once the flight read model is built. */
  readModel?: RebuildResult;
  /** Seconds since the rebuild started at which each phase began. */
  rebuildPhases?: Record<string, number>;
}

let fixture: Promise<DayLog> | undefined;

export function dayLog(): Promise<DayLog> {
  fixture ??= buildDayLog();
  return fixture;
}

/** Decide every day on a small pool of worker threads; results in day order (as promises). */
function decideDays(): Promise<DayRows>[] {
  return decideInWorkers(DAYS.map((_, i) => i));
}

/**
 * Decide `jobs` (a week fixture day's index, or `{ history: n }`: weekWorker.ts) on WORKERS worker
 * threads; results in job order (as promises), each available as soon as its worker is done.
 */
export function decideInWorkers(jobs: readonly (number | { history: number })[]): Promise<DayRows>[] {
  // A worker thread does not inherit tsx's loader: register it first, as bin/msgx.js does.
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./weekWorker.ts', import.meta.url).href)}); })`;
  const workers = Array.from({ length: Math.min(WORKERS, jobs.length) }, () => new Worker(boot, { eval: true }));
  const queue = jobs.map((_, i) => i);
  const results = jobs.map(() => {
    let settle!: { resolve: (r: DayRows) => void; reject: (e: unknown) => void };
    const promise = new Promise<DayRows>((resolve, reject) => (settle = { resolve, reject }));
    return { promise, settle };
  });
  let finished = 0;
  for (const w of workers) {
    let current = -1;
    const next = () => {
      const i = queue.shift();
      if (i === undefined) return void w.terminate();
      current = i;
      w.postMessage(jobs[i]);
    };
    w.on('message', (rows: DayRows) => {
      results[current]!.settle.resolve(rows);
      if (++finished === jobs.length) for (const x of workers) void x.terminate();
      next();
    });
    w.on('error', (err) => results[current]!.settle.reject(err));
    next();
  }
  return results.map((r) => r.promise);
}

async function insertDay(c: pg.Client, rows: DayRows, firstPosition: number): Promise<void> {
  for (let i = 0; i < rows.kinds.length; i += CHUNK) {
    const end = Math.min(i + CHUNK, rows.kinds.length);
    const positions = Array.from({ length: end - i }, (_, k) => firstPosition + i + k);
    await c.query(
      `INSERT INTO decision_event (position, msg_id, kind, handler, handler_version, flids, payload, recorded_at)
       SELECT d.position, d.position, d.kind, d.handler, d.handler_version,
              ARRAY(SELECT jsonb_array_elements_text(d.flids)), d.payload, d.recorded_at
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::jsonb[], $6::jsonb[], $7::timestamptz[])
              AS d(position, kind, handler, handler_version, flids, payload, recorded_at)`,
      [
        positions,
        rows.kinds.slice(i, end),
        rows.handlers.slice(i, end),
        rows.handlerVersions.slice(i, end),
        rows.flids.slice(i, end),
        rows.payloads.slice(i, end),
        rows.recordedAt.slice(i, end),
      ],
    );
  }
}

async function buildDayLog(): Promise<DayLog> {
  const started = nowMs();
  const db = await createBenchPg('week');
  const client = new pg.Client({ connectionString: db.url, application_name: 'msgx-bench-fixture' });
  await client.connect();
  try {
    // Fixture rows, not a measurement: no need to wait for WAL flushes.
    await client.query('SET synchronous_commit TO off');
    let insertMs = 0;
    let events = 0;
    let flights = 0;
    const flids: string[] = [];
    let liveTraffic: string[] = [];
    // Message id = position: one decision per message, the days in order.
    for (const pending of decideDays()) {
      const rows = await pending;
      const t = nowMs();
      await insertDay(client, rows, events + 1);
      insertMs += nowMs() - t;
      events += rows.kinds.length;
      flights += rows.flights;
      flids.push(...rows.liveFlids);
      if (rows.liveTraffic.length > 0) liveTraffic = rows.liveTraffic;
      progress(`week fixture: day ${rows.day} logged (${events} events, ${flights} flights)`);
    }
    const head = String(events);
    await client.query('UPDATE pipeline_lock SET last_position = $1::bigint, updated_at = now() WHERE id = 1', [head]);
    // The outbox feeder has "delivered" the week already: start it at the head (figure 7 measures
    // live traffic on top of the week, not the re-sending of 200k deliveries).
    await client.query(
      `INSERT INTO projection_checkpoint (name, position) VALUES ('outbox', $1::bigint)
       ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position`,
      [head],
    );
    await client.query('ANALYZE decision_event');
    return {
      db,
      events,
      flights,
      boardDay: DAYS[2],
      flids,
      liveTraffic,
      headPosition: head,
      buildSeconds: { total: (nowMs() - started) / 1000, insert: insertMs / 1000 },
    };
  } finally {
    await client.end();
  }
}

/** Build the flight read model with `msgx rebuild flights`' machinery (once). */
export async function ensureReadModel(log: DayLog, pool: pg.Pool): Promise<RebuildResult> {
  if (log.readModel) return log.readModel;
  const phases: Record<string, number> = {};
  const result = await rebuildFlights({
    pool,
    clock: systemClock,
    log: benchLogger().child({ role: 'rebuild' }),
    onProgress: (p) => void (phases[p.phase] ??= p.elapsedSeconds),
  });
  if (!result.ok) throw new Error(`rebuild of the week fixture failed: ${JSON.stringify(result)}`);
  log.readModel = result;
  log.rebuildPhases = phases;
  return result;
}

/** Run `body` with a pool of three connections on the week fixture's database, ended whatever happens. */
export async function withDayLogPool<T>(applicationName: string, body: (log: DayLog, pool: pg.Pool) => Promise<T>): Promise<T> {
  const log = await dayLog();
  const pool = createPool(log.db.url, { max: 3, applicationName });
  try {
    return await body(log, pool);
  } finally {
    await pool.end();
  }
}

/** Run `body` on a copy `label` of the week fixture's database with a pool of three on it; both gone afterwards. */
export async function withDayLogCopy<T>(
  label: string,
  applicationName: string,
  body: (log: DayLog, db: BenchPg, pool: pg.Pool) => Promise<T>,
): Promise<T> {
  const log = await dayLog();
  const db = await cloneBenchPg(log.db, label);
  const pool = createPool(db.url, { max: 3, applicationName });
  try {
    return await body(log, db, pool);
  } finally {
    await pool.end();
    await db.drop();
  }
}

/** The week fixture with its flight read model built (untimed here when no figure built it yet). */
export function dayLogWithReadModel(): Promise<DayLog> {
  return withDayLogPool('msgx-bench-rebuild', async (log, pool) => {
    await ensureReadModel(log, pool);
    return log;
  });
}
