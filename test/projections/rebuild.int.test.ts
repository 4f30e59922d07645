import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { FakeClock } from '../../src/platform/clock.ts';
import { createPool } from '../../src/platform/db.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { readCheckpoint } from '../../src/projections/checkpoint.ts';
import { createFlightProjector } from '../../src/projections/flightProjector.ts';
import { FLIGHT_PROJECTION_TABLES } from '../../src/readModel/flightTables.ts';
import { loadFlights } from '../../src/projections/loadFlights.ts';
import { createOutboxFeeder } from '../../src/projections/outboxFeeder.ts';
import type { Projector } from '../../src/projections/projector.ts';
import type { RebuildPhase, RebuildProgress } from '../../src/projections/rebuild/progress.ts';
import { rebuildFlights, type RebuildOptions } from '../../src/projections/rebuild/rebuildFlights.ts';
import { runBatch } from '../../src/projections/runBatch.ts';
import { shardOf } from '../../src/projections/rebuild/shardFold.ts';
import { foldModelUpTo } from '../../src/write/snapshot/foldUpTo.ts';
import { createTestDatabase, withAdminClient, type TestDatabase } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import { appendAll, appendBatch } from '../support/decisions.ts';
import { buildLog, planLog, type BuiltLog } from './support/log.ts';

let db: TestDatabase;
let log: BuiltLog;
const cleanups: (() => Promise<void>)[] = [];

const SYNTHETIC = { days: 2, flightsPerDay: 40, opsPerDay: 150, seed: 7 };

beforeEach(async () => {
  db = await createTestDatabase('rebuild');
  log = await buildLog(db.pool, SYNTHETIC);
  await drain(createFlightProjector());
  await drain(createOutboxFeeder({ tz: 'Asia/Shanghai', clock: new FakeClock() }));
});
afterEach(async () => {
  await db.drop();
  for (const c of cleanups.splice(0)) await c();
});

async function drain(p: Projector, batchSize = 50): Promise<void> {
  const clock = new FakeClock();
  for (;;) if ((await runBatch(db.pool, p, { batchSize, clock })).kind === 'idle') return;
}

/** Every row of every projection table, as sorted JSON text. */
async function snapshot(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of FLIGHT_PROJECTION_TABLES) {
    const { rows } = await db.pool.query(`SELECT to_jsonb(x)::text AS r FROM public.${t} x ORDER BY 1`);
    out[t] = rows.map((r) => r.r);
  }
  return out;
}

/** Index and constraint names and definitions, and table oids. */
async function catalog(): Promise<{ defs: string[]; oids: Record<string, string> }> {
  const { rows } = await db.pool.query(
    `SELECT tablename || ' ' || indexname || ' ' || indexdef AS d FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY($1)
     UNION ALL
     SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
      WHERE conrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname = ANY($1))
     ORDER BY 1`,
    [[...FLIGHT_PROJECTION_TABLES]],
  );
  const oids = await db.pool.query(
    "SELECT relname, oid::text FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname = ANY($1)",
    [[...FLIGHT_PROJECTION_TABLES]],
  );
  return { defs: rows.map((r) => r.d), oids: Object.fromEntries(oids.rows.map((r) => [r.relname, r.oid])) };
}

async function scratchSchemas(): Promise<string[]> {
  const { rows } = await db.pool.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'msgx\\_%' ORDER BY 1");
  return rows.map((r) => r.nspname);
}

async function outboxSummary(): Promise<{ n: number; max: string | null }> {
  const { rows } = await db.pool.query('SELECT count(*)::int AS n, max(event_id)::text AS max FROM msg_event');
  return rows[0];
}

const rebuild = (o: Partial<RebuildOptions> = {}) =>
  rebuildFlights({ pool: db.pool, clock: new FakeClock(), log: silentLogger, pageSize: 40, flushChunk: 37, ...o });

describe('rebuild flights', () => {
  it('yields identical rows under the same names, writes no outbox rows, and announces itself', async () => {
    const head = String(log.decisions.length);
    expect(await readCheckpoint(db.pool, 'flights')).toBe(head);
    const rowsBefore = await snapshot();
    expect(rowsBefore.flight_schd!.length).toBeGreaterThan(80);
    expect(rowsBefore.schd_snap_log!.length).toBeGreaterThan(3);
    const catBefore = await catalog();
    const outboxBefore = await outboxSummary();
    expect(outboxBefore.n).toBeGreaterThan(0);

    const watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    const heard: string[] = [];
    watcher.on('notification', (n) => heard.push(`${n.channel} ${n.payload}`));
    await watcher.query('LISTEN msgx_rebuilt');
    await watcher.query('LISTEN msgx_projection');
    const progress: RebuildProgress[] = [];
    try {
      const result = await rebuild({ onProgress: (p) => progress.push(p) });
      expect(result).toMatchObject({ ok: true, position: head, events: log.decisions.length, flights: log.flights.size });

      expect(await snapshot()).toEqual(rowsBefore);
      const catAfter = await catalog();
      expect(catAfter.defs).toEqual(catBefore.defs);
      for (const t of FLIGHT_PROJECTION_TABLES) expect(catAfter.oids[t], t).not.toBe(catBefore.oids[t]); // really swapped
      expect(await outboxSummary()).toEqual(outboxBefore);
      expect(await readCheckpoint(db.pool, 'flights')).toBe(head);
      expect(await scratchSchemas()).toEqual([]);
      await waitFor(() => heard.includes('msgx_rebuilt flights') && heard.includes(`msgx_projection flights:${head}`), {
        what: 'rebuild notifications',
      });
      expect(progress.map((p) => p.phase)).toEqual(expect.arrayContaining(['replay', 'write', 'tail', 'switch', 'done']));
      expect(progress.at(-1)).toMatchObject({ phase: 'done', events: log.decisions.length, position: head });
    } finally {
      await watcher.end();
    }
  });

  it('writes flights the replay stopped touching during it, and ends with the rows of a fold all the same', async () => {
    const expected = await snapshot();
    // Cold after 10 decisions, written in small sets (how many depends on how fast PostgreSQL
    // writes them: one set at a time), some flights touched again afterwards.
    const r = await rebuild({ pageSize: 5, flushChunk: 5, writeBehindAfter: 10 });
    expect(r).toMatchObject({ ok: true, events: log.decisions.length });
    expect(r.ok && r.writtenBehind).toBeGreaterThan(0);
    expect(await snapshot()).toEqual(expected);
    // The default waits for many more decisions than this log has: nothing is written behind.
    expect(await rebuild()).toMatchObject({ ok: true, writtenBehind: 0 });
    expect(await snapshot()).toEqual(expected);
  });

  it('folding in worker threads, the flights split by flid, gives the rows of a fold in one thread', async () => {
    const expected = await snapshot();
    const flids = await db.pool.query<{ one: number; shared: number }>(
      'SELECT count(*) FILTER (WHERE cardinality(flids) = 1)::int AS one, count(*) FILTER (WHERE cardinality(flids) <> 1)::int AS shared FROM decision_event',
    );
    expect(flids.rows[0]!.one).toBeGreaterThan(0); // both kinds of routing are exercised
    expect(flids.rows[0]!.shared).toBeGreaterThan(0);
    for (const foldWorkers of [2, 3]) {
      await db.pool.query("UPDATE flight_schd SET aircraft_type = 'XXX'");
      const r = await rebuild({ foldWorkers, pageSize: 50 });
      expect(r).toMatchObject({ ok: true, from: 'position 0', events: log.decisions.length, flights: log.flights.size });
      expect(await snapshot()).toEqual(expected);
    }
  });

  it('after a replay on the worker thread, the tail reads back the flights it changes from the scratch tables', async () => {
    const expected = await snapshot();
    const flids = [...log.flights.keys()].slice(0, 3);
    const tail = flids.map((flid, i) => ({
      flids: [flid], payload: { changes: [{ type: 'FlightUpdated' as const, flid, fields: { remark: `tail ${i}` } }] }, recordedAt: new Date(),
    }));
    let appended: Promise<unknown> | undefined;
    // Appended once the worker has folded to the log's end and writes (one flight per statement
    // set, so it writes for a while): the tail folds them in this thread.
    const r = await rebuild({
      replayThread: 'worker',
      flushChunk: 1,
      onProgress: (p) => {
        if (p.phase === 'write') appended ??= appendBatch(db.pool, tail);
      },
    });
    await appended;
    expect(r).toMatchObject({ ok: true, events: log.decisions.length + tail.length, flights: expected.flight_schd!.length });
    const rebuilt = await snapshot();
    const loaded = await loadFlights(db.pool, flids);
    expect(flids.map((f) => loaded.get(f)?.remark)).toEqual(['tail 0', 'tail 1', 'tail 2']);
    // The same log folded in this thread from position 0.
    expect(await rebuild()).toMatchObject({ ok: true, events: log.decisions.length + tail.length });
    expect(await snapshot()).toEqual(rebuilt);
  });

  it('folds in one thread when a decision changes a flight its flids column does not name', async () => {
    const all = [...log.flights.keys()];
    const a = all[0]!;
    const b = all.find((f) => shardOf(f, 2) !== shardOf(a, 2))!;
    await appendAll(db.pool, [{ flids: [a!], payload: { changes: [{ type: 'FlightUpdated', flid: b!, fields: { remark: 'not in flids' } }] }, recordedAt: new Date() }]);
    await drain(createFlightProjector());
    const expected = await snapshot();
    const warned: string[] = [];
    const spy = Object.assign(Object.create(silentLogger) as typeof silentLogger, { warn: (_: unknown, msg: string) => void warned.push(msg) });
    expect(await rebuild({ foldWorkers: 2, pageSize: 50, log: spy })).toMatchObject({ ok: true, events: log.decisions.length + 1 });
    expect(warned).toEqual([expect.stringContaining('folding in one thread')]);
    expect(await snapshot()).toEqual(expected);
  });

  it('starting from a write-model image at any position gives the rows of a fold from position 0', async () => {
    const expected = await snapshot();
    const head = log.decisions.length;
    for (const at of [1, Math.floor(head / 3), head - 1, head]) {
      // The live tables are wrong in every way a fresh fold would repair: only the image and the log may count.
      await db.pool.query('DELETE FROM public.flight_schd WHERE flid IN (SELECT flid FROM public.flight_schd ORDER BY flid LIMIT 5)');
      const model = await foldModelUpTo(db.pool, String(at));
      const r = await rebuild({ startFrom: async () => ({ position: model.position, flights: model.flights }) });
      expect(r).toMatchObject({ ok: true, from: `snapshot at ${at}`, events: head - at });
      expect(await snapshot()).toEqual(expected);
    }
    expect(await rebuild({ startFrom: async () => undefined })).toMatchObject({ ok: true, from: 'position 0', events: head });
    expect(await snapshot()).toEqual(expected);
  });

  it('repairs rows that differ from the log', async () => {
    await db.pool.query("UPDATE flight_schd SET aircraft_type = 'XXX'");
    await db.pool.query('DELETE FROM flight_gate');
    await db.pool.query("INSERT INTO schd_snap_log VALUES (999999, NULL, 'DNLD', '2025-01-01', NULL, NULL, 1, 0, 0, 0, 0, now())");
    expect((await rebuild()).ok).toBe(true);
    const loaded = await loadFlights(db.pool, [...log.flights.keys()]);
    expect(new Map([...loaded].sort())).toEqual(new Map([...log.flights].sort()));
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM schd_snap_log WHERE position = 999999');
    expect(rows[0].n).toBe(0);
  });

  it('keeps readers answering from the old tables while it builds, and the live projector continues after the switch', async () => {
    const clock = new FakeClock();
    const { createProjectorLoop } = await import('../../src/projections/projectorLoop.ts');
    const { createDecisionListener } = await import('../../src/projections/decisionListener.ts');
    const { Wakeup } = await import('../../src/platform/wakeup.ts');
    const wakeup = new Wakeup();
    const listener = createDecisionListener({ pool: db.pool, wakeups: [wakeup], clock, log: silentLogger, retryMs: 1000 });
    const live = createProjectorLoop({
      pool: db.pool, projector: createFlightProjector(), wakeup, clock, log: silentLogger, pollIntervalMs: 1000, batchSize: 20,
    });
    await listener.start();
    await live.start();

    const readPool = createPool(db.url, { max: 3 });
    const board = { queries: 0, errors: [] as string[], empty: 0, stop: false };
    const boardLoop = (async () => {
      while (!board.stop) {
        try {
          const { rows } = await readPool.query(
            `SELECT f.flid, f.flight_no, count(s.seq_no) AS stands, count(r.seq_no) AS route
               FROM flight_schd f LEFT JOIN flight_stand s USING (flid) LEFT JOIN flight_route_point r USING (flid)
              WHERE f.operation_day = '2025-03-14' AND NOT f.deleted GROUP BY f.flid, f.flight_no`,
          );
          if (rows.length === 0) board.empty += 1;
          const flights = await loadFlights(readPool, rows.slice(0, 50).map((r) => r.flid));
          if (flights.size === 0) board.empty += 1;
        } catch (err) {
          board.errors.push((err as Error).message);
        }
        board.queries += 1;
      }
    })();
    // More traffic while the rebuild runs: new flights on a later day.
    const more = planLog({ days: 1, flightsPerDay: 20, opsPerDay: 60, seed: 9, firstDay: '2025-03-16', firstFlid: 950_000 }, log);
    const appending = appendAll(db.pool, more.decisions.slice(log.decisions.length));
    try {
      const result = await rebuild({ pageSize: 10, flushChunk: 11 });
      expect(result.ok).toBe(true);
      await appending;
      const head = String(more.decisions.length);
      await waitFor(async () => (await readCheckpoint(db.pool, 'flights')) === head, { what: 'live projector caught up after the switch' });
    } finally {
      board.stop = true;
      await boardLoop;
      await live.stop();
      await listener.stop();
      await readPool.end();
    }
    expect(board.errors).toEqual([]);
    expect(board.empty).toBe(0);
    expect(board.queries).toBeGreaterThan(3);
    const loaded = await loadFlights(db.pool, [...more.flights.keys()]);
    expect(new Map([...loaded].sort())).toEqual(new Map([...more.flights].sort()));
  });

  it.each<[RebuildPhase, 'this' | 'worker']>([['replay', 'this'], ['write', 'this'], ['tail', 'this'], ['switch', 'this'], ['replay', 'worker'], ['write', 'worker']])(
    'cancelled during %s (replay on %s thread): drops the scratch tables and leaves the live tables untouched',
    async (phase, replayThread) => {
      const rowsBefore = await snapshot();
      const catBefore = await catalog();
      const abort = new AbortController();
      const result = await rebuild({
        replayThread,
        signal: abort.signal,
        onProgress: (p) => {
          if (p.phase === phase) abort.abort();
        },
      });
      expect(result).toEqual({ ok: false, reason: 'cancelled' });
      expect(await scratchSchemas()).toEqual([]);
      expect(await catalog()).toEqual(catBefore);
      expect(await snapshot()).toEqual(rowsBefore);
      expect(await readCheckpoint(db.pool, 'flights')).toBe(String(log.decisions.length));
    },
  );

  it('keeps the grants of the live tables', async () => {
    const role = `msgx_reader_t${process.pid}`;
    await withAdminClient((c) => c.query(`CREATE ROLE ${role} NOLOGIN`));
    cleanups.push(() => withAdminClient((c) => c.query(`DROP ROLE IF EXISTS ${role}`)).then(() => undefined));
    for (const t of FLIGHT_PROJECTION_TABLES) await db.pool.query(`GRANT SELECT ON public.${t} TO ${role}`);
    await db.pool.query(`GRANT INSERT ON public.flight_schd TO ${role} WITH GRANT OPTION`);
    expect((await rebuild()).ok).toBe(true);
    const { rows } = await db.pool.query(
      `SELECT t, has_table_privilege($1, 'public.' || t, 'SELECT') AS sel, has_table_privilege($1, 'public.' || t, 'UPDATE') AS upd
         FROM unnest($2::text[]) AS t`,
      [role, [...FLIGHT_PROJECTION_TABLES]],
    );
    expect(rows.every((r) => r.sel && !r.upd)).toBe(true);
    const ins = await db.pool.query("SELECT has_table_privilege($1, 'public.flight_schd', 'INSERT WITH GRANT OPTION') AS ok", [role]);
    expect(ins.rows[0].ok).toBe(true);
  });

  it('retries the switch when a reader holds the live tables longer than the lock timeout', async () => {
    const clock = new FakeClock();
    const reader = await db.pool.connect();
    const switches: number[] = [];
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM flight_schd');
      const running = rebuild({ clock, lockTimeoutMs: 100, onProgress: (p) => p.phase === 'switch' && switches.push(1) });
      await waitFor(() => clock.pendingSleepers > 0, { what: 'first switch attempt gave up' });
      // The reader still sees the live tables, untouched.
      const { rows } = await reader.query('SELECT count(*)::int AS n FROM flight_schd');
      expect(rows[0].n).toBeGreaterThan(0);
      await reader.query('COMMIT');
      clock.advance(100);
      expect((await running).ok).toBe(true);
    } finally {
      reader.release();
    }
    expect(switches.length).toBe(2);
  });

  it('refuses while a view reads the tables, and when another rebuild runs', async () => {
    await db.pool.query('CREATE VIEW board AS SELECT flid FROM flight_schd');
    const refused = await rebuild();
    expect(refused).toMatchObject({ ok: false, reason: 'refused' });
    expect(refused.ok === false && refused.reason === 'refused' && refused.problems[0]).toMatch(/view .*board reads .*flight_schd/);
    await db.pool.query('DROP VIEW board');

    const holder = await db.pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(7735005)');
      expect(await rebuild()).toEqual({ ok: false, reason: 'busy' });
    } finally {
      await holder.query('SELECT pg_advisory_unlock(7735005)');
      holder.release();
    }
    expect(await scratchSchemas()).toEqual([]);
  });
});
