import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toFlightView } from '../../src/domain/flightView.ts';
import { FakeClock } from '../../src/platform/clock.ts';
import { createFlightProjector, type FlightsFold } from '../../src/projections/flightProjector.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { loadFlights } from '../../src/projections/loadFlights.ts';
import { runBatch } from '../../src/projections/runBatch.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { appendAll } from '../support/decisions.ts';
import { mismatches } from '../support/matchExpected.ts';
import { TZ, decideMessages } from './support/corpus.ts';
import { activeScenarioNames, readScenario } from '../support/corpusDir.ts';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase('flightproj');
});
afterEach(async () => {
  await db.drop();
});

async function drain(batchSize: number, shared?: FlightsFold): Promise<number> {
  const projector = createFlightProjector(undefined, undefined, shared);
  const clock = new FakeClock();
  let batches = 0;
  for (;;) {
    const out = await runBatch(db.pool, projector, { batchSize, clock });
    if (out.kind === 'idle') return batches;
    batches += 1;
  }
}

describe('flight projector over the corpus', () => {
  it.each(activeScenarioNames())('%s: rows read back equal expect.json and the write model', async (name) => {
    const scenario = readScenario(name);
    const { decisions, flights } = decideMessages(scenario.files.map((f) => f.xml));
    await appendAll(db.pool, decisions);

    const batches = await drain(4); // small batches: flights cross batch boundaries through the rows
    expect(batches).toBe(Math.ceil(decisions.length / 4));

    const loaded = await loadFlights(db.pool, [...flights.keys()]);
    // Every flight the domain folded is in the rows, exactly as folded (a lossless round trip).
    expect(new Map([...loaded].sort())).toEqual(new Map([...flights].sort()));

    for (const [flid, fields] of Object.entries(scenario.expect.flights ?? {})) {
      const state = loaded.get(flid);
      expect(state, `flight ${flid}`).toBeDefined();
      expect(mismatches(fields, toFlightView(state!, { tz: TZ })), `flight ${flid}`).toEqual([]);
    }
    for (const flid of scenario.expect.absentFlights ?? []) {
      const { rows } = await db.pool.query('SELECT 1 FROM flight_schd WHERE flid = $1', [flid]);
      expect(rows, `flight ${flid} must be absent`).toHaveLength(0);
    }
    const { rows: cp } = await db.pool.query("SELECT position FROM projection_checkpoint WHERE name = 'flights'");
    expect(cp[0].position).toBe(String(decisions.length));
  });

  it('stamps rows with state_version, last_position, last_msg_id, updated_at and soft-deletes', async () => {
    const { decisions } = decideMessages(readScenario('01-plan-and-operations').files.map((f) => f.xml));
    await appendAll(db.pool, decisions);
    await drain(500);
    const { rows } = await db.pool.query(
      `SELECT flid, deleted, deleted_reason, state_version, last_position, last_msg_id, updated_at
         FROM flight_schd WHERE flid = 880004`,
    );
    // 033-fdel.xml is the 33rd message: position 33, msg id 33, recorded 32 s after the start.
    expect(rows[0]).toMatchObject({
      flid: '880004', deleted: true, deleted_reason: 'fdel', last_position: '33', last_msg_id: '33',
      updated_at: new Date('2025-03-14T00:00:32Z'),
    });
    expect(rows[0].state_version).toBeGreaterThan(1);
    const detail = await db.pool.query(
      "SELECT kind, seq_no, airport, updated_at FROM flight_route_point WHERE flid = 880004 ORDER BY kind, seq_no",
    );
    expect(detail.rows.map((r) => [r.kind, r.seq_no, r.airport])).toEqual([['ERUT', 1, 'ICN'], ['ERUT', 2, 'TAO'], ['ROUT', 1, 'ICN']]);
    // Detail rows carry the flight's updated_at (they are rewritten with it).
    expect(detail.rows.every((r) => r.updated_at.getTime() === rows[0].updated_at.getTime())).toBe(true);
  });

  it('logs one schd_snap_log row per plan snapshot with the generation of its day', async () => {
    const { decisions } = decideMessages(readScenario('03-plan-snapshots').files.map((f) => f.xml));
    await appendAll(db.pool, decisions);
    await drain(2); // snapshots of one day land in different batches
    const { rows } = await db.pool.query(
      `SELECT position, msg_id, styp, day::text AS day, generation, created, updated, deleted, ignored
         FROM schd_snap_log ORDER BY position`,
    );
    expect(rows).toEqual([
      { position: '1', msg_id: '1', styp: 'DNLD', day: '2025-03-13', generation: 1, created: 1, updated: 0, deleted: 0, ignored: 0 },
      { position: '2', msg_id: '2', styp: 'DNLD', day: '2025-03-14', generation: 1, created: 3, updated: 0, deleted: 0, ignored: 0 },
      { position: '3', msg_id: '3', styp: 'DNLD', day: '2025-03-14', generation: 2, created: 0, updated: 1, deleted: 1, ignored: 0 },
      { position: '5', msg_id: '5', styp: 'DNLD', day: '2025-03-14', generation: 3, created: 0, updated: 0, deleted: 0, ignored: 1 },
    ]);
  });

  it('removes archived flights physically, detail rows included', async () => {
    const { decisions, flights } = decideMessages(readScenario('01-plan-and-operations').files.map((f) => f.xml));
    decisions.push({
      msgId: null,
      kind: 'FlightsArchived',
      payload: { changes: [{ type: 'FlightsArchived', flids: ['880001', '880004'], beforeDay: '2025-03-15' }], keepDays: 5 },
      recordedAt: new Date('2025-03-20T00:00:00Z'),
    });
    await appendAll(db.pool, decisions);
    await drain(500);
    const { rows } = await db.pool.query('SELECT flid FROM flight_schd ORDER BY flid');
    expect(rows.map((r) => r.flid)).toEqual([...flights.keys()].filter((f) => f !== '880001' && f !== '880004').sort());
    const orphans = await db.pool.query(
      "SELECT count(*)::int AS n FROM flight_route_point WHERE flid IN (880001, 880004)",
    );
    expect(orphans.rows[0].n).toBe(0);
  });
});

describe("flight projector beside the pump's fold", () => {
  /** The decisions of a scenario and the fold of all of them, and which flights each decision left as last changed by it. */
  function folded(name: string) {
    const { decisions } = decideMessages(readScenario(name).files.map((f) => f.xml));
    const model = new Map<string, FlightState>();
    const touchedAt = new Map<string, string[]>();
    decisions.forEach((d, i) => {
      const changes = d.payload.changes ?? [];
      if (changes.length > 0) touchedAt.set(String(i + 1), [...applyDecision(model, { position: String(i + 1), msgId: d.msgId, recordedAt: d.recordedAt.toISOString(), changes })]);
    });
    return { decisions, model, touchedAt };
  }

  it('writes the same rows when it takes the flights of a decision from that fold', async () => {
    const { decisions, model } = folded('01-plan-and-operations');
    await appendAll(db.pool, decisions);
    await drain(4, { flights: model });
    const loaded = await loadFlights(db.pool, [...model.keys()]);
    expect(new Map([...loaded].sort())).toEqual(new Map([...model].sort()));
  });

  it('takes the states of a decision whose flights the fold holds as of that decision, and folds the others', async () => {
    const { decisions, model, touchedAt } = folded('03-plan-snapshots');
    await appendAll(db.pool, decisions);
    const [position, flids] = [...touchedAt].reverse().find(([p, fs]) => fs.length > 1 && fs.every((f) => model.get(f)?.lastPosition === p))!;
    // Marked, so that rows written from the fold's states tell themselves apart from a fold here.
    const shared = new Map(model);
    for (const flid of flids) shared.set(flid, { ...model.get(flid)!, airline: 'ZZ' });
    await drain(500, { flights: shared });
    const loaded = await loadFlights(db.pool, [...model.keys()]);
    for (const [flid, state] of model) {
      expect(loaded.get(flid), `flight ${flid}`).toEqual(flids.includes(flid) ? { ...state, airline: 'ZZ' } : state);
    }
    expect(position).not.toBe('1');
  });
});
