/**
 * Consistency checks after a real corpus day (assembled writer, mailbox emulated in PostgreSQL):
 * clean → nothing; each kind of damage done with direct SQL → exactly that mismatch, named and
 * with both values; `msgx verify` as a process (exit codes, JSON on stdout); the writer's start-up
 * check recording its result for /metrics and GraphQL.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { runCheck, type Selection } from '../../src/consistency/runCheck.ts';
import type { CheckReport, Mismatch } from '../../src/consistency/report.ts';
import { createSentinel } from '../../src/consistency/sentinel.ts';
import { START_SETTLE_MAX_MS } from '../../src/platform/untilSettled.ts';
import { FakeClock, systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { DETAIL_TABLES } from '../../src/readModel/flightRows.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';
import { waitFor } from '../support/waitFor.ts';
import { startApp } from '../support/testApp.ts';
import { seedCorpusDay } from './support/corpusDay.ts';

const db = fileDatabase('verify');
/** Undo steps of the current test's damage, run after it. */
const undo: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  await seedCorpusDay(db);
}, 180_000);
afterEach(async () => {
  for (const u of undo.splice(0).reverse()) await u();
});

const check = (selection: Selection = { kind: 'all' }): Promise<CheckReport> =>
  runCheck(db.pool, { selection, clock: systemClock, writebackGraceMs: 0 });

async function one<T>(sql: string, params: unknown[] = []): Promise<T> {
  const { rows } = await db.pool.query(sql, params);
  expect(rows.length, sql).toBeGreaterThan(0);
  return rows[0] as T;
}

/** Delete rows and restore them exactly afterwards. */
async function deleteRows(table: string, where: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  const { rows } = await db.pool.query(`DELETE FROM ${table} WHERE ${where} RETURNING to_jsonb(${table}.*) AS r`, params);
  expect(rows.length).toBeGreaterThan(0);
  undo.push(() =>
    db.pool.query(`INSERT INTO ${table} SELECT (jsonb_populate_record(NULL::${table}, r)).* FROM jsonb_array_elements($1::jsonb) AS x(r)`, [
      JSON.stringify(rows.map((x) => x.r)),
    ]),
  );
  return rows.map((x) => x.r);
}

describe('after a clean corpus day', () => {
  it('reports zero mismatches for every selection, having checked flights, decisions and write-backs', async () => {
    const all = await check();
    expect(all.mismatches).toEqual([]);
    expect(all.checked.flights).toBeGreaterThan(5);
    expect(all.checked.decisions).toBeGreaterThan(5);
    expect(all.checked.messages).toBeGreaterThan(5);
    expect(all.checked.reference).toBeGreaterThan(5);
    expect(all.positions.flights).toBe(all.positions.log);
    expect(all.positions.outbox).toBe(all.positions.log);

    const sample = await check({ kind: 'sample', ratio: 0.5 });
    expect(sample.mismatches).toEqual([]);
    expect(sample.checked.flights).toBe(Math.ceil(all.checked.flights * 0.5));

    const { day } = await one<{ day: string }>('SELECT operation_day::text AS day FROM flight_schd GROUP BY 1 ORDER BY count(*) DESC LIMIT 1');
    const byDay = await check({ kind: 'day', day });
    expect(byDay.mismatches).toEqual([]);
    expect(byDay.checked.flights).toBeGreaterThan(0);

    const { flid } = await one<{ flid: string }>('SELECT flid::text AS flid FROM flight_schd ORDER BY state_version DESC LIMIT 1');
    const byFlight = await check({ kind: 'flights', flids: [flid] });
    expect(byFlight).toMatchObject({ mismatches: [], checked: { flights: 1 } });
    expect(byFlight.checked.decisions).toBeGreaterThan(1);
  });
});

describe('damage done with direct SQL is reported exactly', () => {
  it('a changed column: the flight, its GraphQL field, the log value and the row value', async () => {
    const f = await one<{ flid: string; stand: string | null; reg: string | null }>(
      'SELECT flid::text AS flid, current_stand AS stand, registration AS reg FROM flight_schd WHERE current_stand IS NOT NULL ORDER BY flid LIMIT 1',
    );
    await db.pool.query("UPDATE flight_schd SET current_stand = 'Z99', registration = 'B-XXXX' WHERE flid = $1", [f.flid]);
    undo.push(() => db.pool.query('UPDATE flight_schd SET current_stand = $2, registration = $3 WHERE flid = $1', [f.flid, f.stand, f.reg]));

    const r = await check();
    expect(r.mismatches).toHaveLength(2);
    expect(r.mismatches).toEqual(expect.arrayContaining([
      { check: 'flights', flid: f.flid, field: 'registration', log: f.reg, row: 'B-XXXX' },
      { check: 'flights', flid: f.flid, field: 'currentStand', log: f.stand, row: 'Z99' },
    ]));
    expect((await check({ kind: 'flights', flids: [f.flid] })).mismatches).toHaveLength(2);
  });

  it('a flight document (the read API fast path) that is not the fold: its field, both values; another version is not served, so not a mismatch', async () => {
    const f = await one<{ flid: string; stand: string }>(
      "SELECT flid::text AS flid, doc->>'currentStand' AS stand FROM flight_schd WHERE current_stand IS NOT NULL AND doc_version IS NOT NULL ORDER BY flid LIMIT 1",
    );
    await db.pool.query(`UPDATE flight_schd SET doc = jsonb_set(doc::jsonb, '{currentStand}', '"Z98"')::json WHERE flid = $1`, [f.flid]);
    undo.push(() => db.pool.query(`UPDATE flight_schd SET doc = jsonb_set(doc::jsonb, '{currentStand}', to_jsonb($2::text))::json WHERE flid = $1`, [f.flid, f.stand]));
    expect((await check()).mismatches).toEqual([{ check: 'flights', flid: f.flid, field: 'doc.currentStand', log: f.stand, row: 'Z98' }]);
    expect((await check({ kind: 'flights', flids: [f.flid] })).mismatches).toHaveLength(1);

    const version = await one<{ v: number }>('SELECT doc_version AS v FROM flight_schd WHERE flid = $1', [f.flid]);
    await db.pool.query('UPDATE flight_schd SET doc_version = doc_version + 1 WHERE flid = $1', [f.flid]);
    undo.push(() => db.pool.query('UPDATE flight_schd SET doc_version = $2 WHERE flid = $1', [f.flid, version.v]));
    expect((await check()).mismatches).toEqual([]);
  });

  it('a missing and an extra detail row: the list by GraphQL name, with the item only one side has', async () => {
    const g = await one<{ flid: string; seq: number }>('SELECT flid::text AS flid, seq_no AS seq FROM flight_counter ORDER BY flid, seq_no LIMIT 1');
    const [gone] = await deleteRows('flight_counter', 'flid = $1 AND seq_no = $2', [g.flid, g.seq]);
    const s = await one<{ flid: string }>('SELECT flid::text AS flid FROM flight_schd WHERE flid <> $1 ORDER BY flid LIMIT 1', [g.flid]);
    await db.pool.query(
      `INSERT INTO flight_stand (flid, seq_no, stand_code, start_time, end_time, updated_at)
       VALUES ($1, 99, 'X1', '2025-03-14T01:00:00Z', NULL, NULL)`,
      [s.flid],
    );
    undo.push(() => db.pool.query('DELETE FROM flight_stand WHERE flid = $1 AND seq_no = 99', [s.flid]));

    const r = await check();
    expect(r.mismatches).toHaveLength(2);
    const byFlid = new Map(r.mismatches.map((m) => [(m as { flid: string }).flid, m]));
    const missing = byFlid.get(g.flid) as Extract<Mismatch, { list: string }>;
    expect(missing).toMatchObject({ check: 'flights', list: 'checkInCounters', extra: [] });
    expect(missing.missing).toEqual([expect.objectContaining({ seq: g.seq, code: gone!.counter_code })]);
    expect(missing.log.length).toBe(missing.row.length + 1);
    const extra = byFlid.get(s.flid) as Extract<Mismatch, { list: string }>;
    expect(extra).toMatchObject({ check: 'flights', list: 'stands', missing: [] });
    expect(extra.extra).toEqual([{ seq: 99, code: 'X1', class: null, kind: null, scheduledStart: '2025-03-14T01:00:00.000Z', scheduledEnd: null, actualStart: null, actualEnd: null }]);
  });

  it('a flight row deleted (with its detail rows) is missing; a deleted outbox row is missing', async () => {
    const f = await one<{ flid: string }>('SELECT flid::text AS flid FROM flight_schd ORDER BY flid DESC LIMIT 1');
    // Detail rows go with the flight (ON DELETE CASCADE): save them first; undo restores the flight
    // first (undo steps run in reverse), then these.
    const saved = await Promise.all(DETAIL_TABLES.map(async (t) => ({ t, rows: (await db.pool.query(`SELECT to_jsonb(x.*) AS r FROM ${t} x WHERE flid = $1`, [f.flid])).rows })));
    undo.push(async () => {
      for (const s of saved) {
        if (s.rows.length === 0) continue;
        await db.pool.query(`INSERT INTO ${s.t} SELECT (jsonb_populate_record(NULL::${s.t}, r)).* FROM jsonb_array_elements($1::jsonb) AS x(r)`, [
          JSON.stringify(s.rows.map((x) => x.r)),
        ]);
      }
    });
    await deleteRows('flight_schd', 'flid = $1', [f.flid]);
    const o = await one<{ pos: string; seq: number; flid: string }>(
      "SELECT source_position::text AS pos, seq, flid FROM msg_event WHERE target = 'KAFKA_MSG' AND flid IS NOT NULL ORDER BY source_position DESC LIMIT 1",
    );
    await deleteRows('msg_event', "target = 'KAFKA_MSG' AND source_position = $1 AND seq = $2", [o.pos, o.seq]);

    const r = await check();
    expect(r.mismatches).toEqual([
      { check: 'flights', flid: f.flid, problem: 'missing-row' },
      { check: 'outbox', problem: 'missing', position: o.pos, target: 'KAFKA_MSG', seq: o.seq, flid: o.flid },
    ]);
  });

  it('an outbox row no decision implies is an orphan', async () => {
    const { pos } = await one<{ pos: string }>("SELECT position::text AS pos FROM decision_event WHERE kind = 'Skipped' ORDER BY position LIMIT 1");
    await db.pool.query(
      `INSERT INTO msg_event (target, source_position, seq, msg_id, flid, payload, created_at) VALUES ('KAFKA_SCHD', $1, 0, NULL, '1', '{}', now())`,
      [pos],
    );
    undo.push(() => db.pool.query("DELETE FROM msg_event WHERE target = 'KAFKA_SCHD' AND source_position = $1 AND seq = 0", [pos]));
    expect((await check()).mismatches).toEqual([
      { check: 'outbox', problem: 'orphan', position: pos, target: 'KAFKA_SCHD', seq: 0, flid: '1', decision: 'Skipped' },
    ]);
  });

  it('reference data: a changed column and a deleted row, named by table, key and column', async () => {
    const r = await one<{ kind: string; code: string; name: string | null }>(
      'SELECT kind, code, name FROM reference_record ORDER BY kind, code LIMIT 1',
    );
    await db.pool.query("UPDATE reference_record SET name = 'HAND-EDITED' WHERE kind = $1 AND code = $2", [r.kind, r.code]);
    undo.push(() => db.pool.query('UPDATE reference_record SET name = $3 WHERE kind = $1 AND code = $2', [r.kind, r.code, r.name]));
    const last = await one<{ kind: string; code: string }>('SELECT kind, code FROM reference_record ORDER BY kind DESC, code DESC LIMIT 1');
    await deleteRows('reference_record', 'kind = $1 AND code = $2', [last.kind, last.code]);
    const report = await check();
    expect(report.mismatches).toEqual([
      { check: 'reference', table: 'reference_record', key: `${r.kind}/${r.code}`, column: 'name', log: r.name, row: 'HAND-EDITED' },
      { check: 'reference', table: 'reference_record', key: `${last.kind}/${last.code}`, problem: 'missing-row' },
    ]);
    // Samples do not check reference data (its decisions name no flight).
    expect((await check({ kind: 'sample', ratio: 1 })).mismatches).toEqual([]);
  });

  it('a missing write-back: a terminal message with neither done nor pending work', async () => {
    const m = await one<{ id: string; state: string }>("SELECT msg_id::text AS id, state FROM proc_state WHERE state = 'SUCCEEDED' ORDER BY msg_id LIMIT 1");
    await db.pool.query('UPDATE proc_state SET backfill_state = NULL WHERE msg_id = $1', [m.id]);
    undo.push(() => db.pool.query("UPDATE proc_state SET backfill_state = 'DONE' WHERE msg_id = $1", [m.id]));
    expect((await check()).mismatches).toEqual([
      { check: 'writebacks', msgId: m.id, state: 'SUCCEEDED', problem: 'write-back neither done nor pending', log: 'DONE or PENDING', row: null },
    ]);
    const d = await one<{ id: string }>("SELECT msg_id::text AS id FROM proc_state WHERE state = 'SKIPPED' ORDER BY msg_id LIMIT 1");
    await db.pool.query("UPDATE proc_state SET backfill_status = 'PROCESSED', decided_position = 999999 WHERE msg_id = $1", [d.id]);
    const { pos } = await one<{ pos: string }>('SELECT decided_position::text AS pos FROM proc_state WHERE msg_id = $1', [m.id]);
    undo.push(() => db.pool.query("UPDATE proc_state SET backfill_status = 'SKIPPED', decided_position = $2 WHERE msg_id = $1", [d.id, pos]));
    const { head } = await one<{ head: string }>('SELECT max(position)::text AS head FROM decision_event');
    expect((await check()).mismatches).toEqual([
      { check: 'writebacks', msgId: m.id, state: 'SUCCEEDED', problem: 'write-back neither done nor pending', log: 'DONE or PENDING', row: null },
      { check: 'writebacks', msgId: d.id, state: 'SKIPPED', problem: 'write-back status', log: 'SKIPPED', row: 'PROCESSED' },
      { check: 'writebacks', msgId: d.id, state: 'SKIPPED', problem: 'terminal decision not in the log', log: `a position in 1..${head}`, row: '999999' },
    ].sort((a, b) => Number(a.msgId) - Number(b.msgId)));
    // Younger than the grace period: not checked yet.
    const young = await runCheck(db.pool, { selection: { kind: 'all' }, clock: systemClock, writebackGraceMs: 3_600_000 * 24 * 365 * 100 });
    expect(young.mismatches).toEqual([]);
  });
});

describe('msgx verify (process)', () => {
  it('exits 0 with nothing to report, then names exactly the flight and currentStand with both values and exits 1', async () => {
    const env = { MSGX_DATABASE_URL: db.url, MSGX_LOG_LEVEL: 'warn' };
    const clean = spawnMsgx(['verify', '--all', '--json'], env);
    const cleanExit = await clean.exit;
    const cleanOut = clean.output();
    expect(cleanExit.code, cleanOut).toBe(0);
    const cleanJson = JSON.parse(cleanOut.slice(cleanOut.indexOf('{\n'))) as CheckReport;
    expect(cleanJson.mismatches).toEqual([]);

    const f = await one<{ flid: string; stand: string }>(
      'SELECT flid::text AS flid, current_stand AS stand FROM flight_schd WHERE current_stand IS NOT NULL ORDER BY flid DESC LIMIT 1',
    );
    await db.pool.query("UPDATE flight_schd SET current_stand = 'HAND1' WHERE flid = $1", [f.flid]);
    undo.push(() => db.pool.query('UPDATE flight_schd SET current_stand = $2 WHERE flid = $1', [f.flid, f.stand]));
    const damaged = spawnMsgx(['verify', '--all', '--json'], env);
    const exit = await damaged.exit;
    const out = damaged.output();
    expect(exit.code, out).toBe(1);
    const report = JSON.parse(out.slice(out.indexOf('{\n'))) as CheckReport;
    expect(report.mismatches).toEqual([{ check: 'flights', flid: f.flid, field: 'currentStand', log: f.stand, row: 'HAND1' }]);
  }, 180_000); // two processes; each loads the code through tsx, which takes its time on a loaded machine
});

describe('the writer sentinel', () => {
  it('runs a check on start, logs one ERROR line per mismatch, and publishes it to /metrics and pipeline.consistency', async () => {
    const f = await one<{ flid: string; stand: string }>(
      'SELECT flid::text AS flid, current_stand AS stand FROM flight_schd WHERE current_stand IS NOT NULL ORDER BY flid LIMIT 1',
    );
    await db.pool.query("UPDATE flight_schd SET current_stand = 'S1' WHERE flid = $1", [f.flid]);
    undo.push(() => db.pool.query('UPDATE flight_schd SET current_stand = $2 WHERE flid = $1', [f.flid, f.stand]));
    undo.push(() => db.pool.query('DELETE FROM consistency_check'));

    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done(); } });
    const running = await startApp(db, {
      env: { MSGX_CONSISTENCY_CHECK_ON_START: 'true', MSGX_CONSISTENCY_SAMPLE_RATIO: '1' },
      log: createLogger('info', sink),
    });
    try {
      const row = await waitFor(async () => (await db.pool.query("SELECT * FROM consistency_check WHERE trigger = 'start'")).rows[0], {
        what: 'the start-up check recorded',
        timeoutMs: 60_000,
      });
      expect(row).toMatchObject({ scope: 'sample', mismatches: 1 });
      expect(row.sampled).toBeGreaterThan(5);

      const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 50 && l.mismatch);
      expect(errors).toHaveLength(1);
      expect(errors[0].mismatch).toEqual({ check: 'flights', flid: f.flid, field: 'currentStand', log: f.stand, row: 'S1' });

      const metrics = await (await fetch(`${running.base}/metrics`)).text();
      expect(metrics).toMatch(/^msgx_consistency_mismatches 1$/m);
      expect(metrics).toMatch(new RegExp(`^msgx_consistency_checked_total ${row.sampled}$`, 'm'));

      const res = await fetch(`${running.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ pipeline { consistency { checkedAt sampled mismatches trigger } } }' }),
      });
      const body = (await res.json()) as { data: { pipeline: { consistency: Record<string, unknown> } } };
      expect(body.data.pipeline.consistency).toMatchObject({ sampled: row.sampled, mismatches: 1, trigger: 'start' });
      expect(Date.parse(body.data.pipeline.consistency.checkedAt as string)).toBe(new Date(row.checked_at).getTime()); // DateTime keeps milliseconds (#15)
    } finally {
      await running.stop();
    }
  }, 120_000);

  it('holds the start check until the writer has settled (the pump drained) or START_SETTLE_MAX_MS has passed, and a stop ends the wait', async () => {
    undo.push(() => db.pool.query('DELETE FROM consistency_check'));
    const starts = async (): Promise<number> => (await db.pool.query("SELECT count(*)::int AS n FROM consistency_check WHERE trigger = 'start'")).rows[0].n;
    const cfg = { airportTz: 'Asia/Shanghai', consistency: { checkOnStart: true, checkAt: '03:40', sampleRatio: 0.05 } };

    // Settled: the check runs then, not before (the deferral's sleep is the clock's only sleeper).
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => { settle = resolve; });
    const sentinel = createSentinel({ pool: db.pool, clock, log: silentLogger, cfg, settled: () => settled });
    await sentinel.start();
    try {
      await waitFor(() => clock.pendingSleepers === 1, { what: 'the start check deferred' });
      clock.advance(START_SETTLE_MAX_MS - 1);
      expect(await starts()).toBe(0);
      settle();
      await waitFor(async () => (await starts()) === 1, { what: 'the start check after the drain', timeoutMs: 60_000 });
    } finally {
      await sentinel.stop();
    }

    // Never settled: the check runs after START_SETTLE_MAX_MS.
    const clock2 = new FakeClock('2025-03-14T00:00:00Z');
    const late = createSentinel({ pool: db.pool, clock: clock2, log: silentLogger, cfg, settled: () => new Promise<void>(() => {}) });
    await late.start();
    try {
      await waitFor(() => clock2.pendingSleepers === 1, { what: 'the start check deferred' });
      clock2.advance(START_SETTLE_MAX_MS);
      await waitFor(async () => (await starts()) === 2, { what: 'the start check after the bound', timeoutMs: 60_000 });
    } finally {
      await late.stop();
    }

    // A stop while it waits ends the wait and runs no check.
    const clock3 = new FakeClock('2025-03-14T00:00:00Z');
    const stopped = createSentinel({ pool: db.pool, clock: clock3, log: silentLogger, cfg, settled: () => new Promise<void>(() => {}) });
    await stopped.start();
    await waitFor(() => clock3.pendingSleepers === 1, { what: 'the start check deferred' });
    await stopped.stop();
    expect(clock3.pendingSleepers).toBe(0);
    expect(await starts()).toBe(2);
  }, 120_000);

  it('runs the daily check at MSGX_CONSISTENCY_CHECK_AT airport time on the injected clock, and none on start when switched off', async () => {
    undo.push(() => db.pool.query('DELETE FROM consistency_check'));
    const clock = new FakeClock('2025-03-14T00:00:00Z'); // 08:00 in Shanghai
    const sentinel = createSentinel({
      pool: db.pool, clock, log: silentLogger,
      cfg: { airportTz: 'Asia/Shanghai', consistency: { checkOnStart: false, checkAt: '03:40', sampleRatio: 0.5 } },
    });
    await sentinel.start();
    try {
      await waitFor(() => clock.pendingSleepers === 1, { what: 'the sentinel waiting for 03:40' });
      clock.set('2025-03-14T19:39:59Z');
      expect(clock.pendingSleepers).toBe(1);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM consistency_check')).rows[0].n).toBe(0);
      clock.set('2025-03-14T19:40:00Z');
      const row = await waitFor(async () => (await db.pool.query("SELECT * FROM consistency_check WHERE trigger = 'daily'")).rows[0], {
        what: 'the daily check recorded',
        timeoutMs: 60_000,
      });
      expect(row).toMatchObject({ scope: 'sample', mismatches: 0 });
      expect(new Date(row.checked_at).toISOString()).toBe('2025-03-14T19:40:00.000Z');
      const { n } = (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM flight_schd')).rows[0]!;
      expect(row.sampled).toBe(Math.ceil(n * 0.5));
      // And again the next day.
      await waitFor(() => clock.pendingSleepers === 1, { what: 'the sentinel waiting for the next day' });
      clock.set('2025-03-15T19:40:00Z');
      await waitFor(async () => (await db.pool.query("SELECT count(*)::int AS n FROM consistency_check WHERE trigger = 'daily'")).rows[0].n === 2, {
        what: 'the second daily check',
        timeoutMs: 60_000,
      });
    } finally {
      await sentinel.stop();
    }
  }, 120_000);
});
