import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import type { Change } from '../../src/domain/changes.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { toChangeView } from '../../src/domain/changeView.ts';
import { toFlightView } from '../../src/domain/flightView.ts';
import { formatOutward } from '../../src/domain/time.ts';
import { FakeClock } from '../../src/platform/clock.ts';
import { readCheckpoint } from '../../src/projections/checkpoint.ts';
import { createOutboxFeeder } from '../../src/projections/outboxFeeder.ts';
import type { CoutmsgsRoute } from '../../src/projections/outboxRoutes.ts';
import type { Projector } from '../../src/projections/projector.ts';
import { runBatch } from '../../src/projections/runBatch.ts';
import { HISTORY_TABLES } from '../../src/log/historyMonths.ts';
import { archiveHistory } from '../../src/operations/archive/archiveHistory.ts';
import { noFaults } from '../../src/platform/faults.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { foldFingerprint } from '../../src/write/snapshot/foldFingerprint.ts';
import { foldModelUpTo } from '../../src/write/snapshot/foldUpTo.ts';
import { saveSnapshot } from '../../src/write/snapshot/saveSnapshot.ts';
import { encodeImage } from '../../src/write/snapshot/snapshotCodec.ts';
import { newestImage } from '../../src/write/snapshot/warmModel.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import { appendAll, type DecisionInput } from '../support/decisions.ts';
import { decideMessages } from './support/corpus.ts';
import { readScenario } from '../support/corpusDir.ts';

/** The positions the feeder's own fold was asked to apply (its applyDecision, counted). */
const folded = vi.hoisted(() => ({ positions: [] as string[] }));
vi.mock('../../src/domain/evolve.ts', async (importOriginal) => {
  const evolve = await importOriginal<typeof import('../../src/domain/evolve.ts')>();
  return {
    ...evolve,
    applyDecision: (...args: Parameters<typeof evolve.applyDecision>) => {
      folded.positions.push(args[1].position);
      return evolve.applyDecision(...args);
    },
  };
});

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase('outbox');
});
afterEach(async () => {
  await db.drop();
});

const clock = new FakeClock('2025-03-14T12:00:00Z');
const TZ = 'Asia/Shanghai';
/** A UTC ISO instant anywhere in a payload (every outward time carries the airport offset instead). */
const UTC_INSTANT = /"\d{4}-\d{2}-\d{2}T[\d:.]+Z"/;

async function drain(projector: Projector, batchSize = 5): Promise<void> {
  for (;;) {
    const out = await runBatch(db.pool, projector, { batchSize, clock });
    if (out.kind === 'idle') return;
  }
}

interface MsgEvent {
  event_id: string;
  target: string;
  source_position: string;
  seq: number;
  msg_id: string | null;
  flid: string | null;
  payload: Record<string, unknown>;
  headers: Record<string, string>;
}

async function outbox(target: string): Promise<MsgEvent[]> {
  const { rows } = await db.pool.query<MsgEvent>(
    'SELECT event_id, target, source_position, seq, msg_id, flid, payload, headers FROM msg_event WHERE target = $1 ORDER BY event_id',
    [target],
  );
  return rows;
}

/** What the outbox must hold, computed independently from the decisions as appended. */
function expected(decisions: readonly DecisionInput[]) {
  const flights = new Map<string, FlightState>();
  const msg: { position: string; seq: number; flid: string | null; change: Change; msgId: string | null }[] = [];
  const schd: { position: string; flid: string; view: unknown }[] = [];
  decisions.forEach((d, i) => {
    const position = String(i + 1);
    const changes = d.payload.changes ?? [];
    if (changes.length === 0) return;
    const touched = applyDecision(flights, { position, msgId: d.msgId, recordedAt: d.recordedAt.toISOString(), changes });
    if (d.kind !== 'Applied') return;
    changes.forEach((change, seq) => msg.push({ position, seq, flid: 'flid' in change ? change.flid : null, change, msgId: d.msgId }));
    for (const flid of touched) {
      const s = flights.get(flid);
      if (s) schd.push({ position, flid, view: toFlightView(s, { tz: TZ }) });
    }
  });
  return { msg, schd };
}

function corpusDecisions(): DecisionInput[] {
  // All three scenarios in one log: each decided against its own write model (flids don't overlap).
  const out: DecisionInput[] = [];
  for (const name of ['01-plan-and-operations', '02-bad-input-and-duplicates', '03-plan-snapshots']) {
    const xmls = readScenario(name).files.map((f) => f.xml);
    out.push(...decideMessages(xmls, { firstMsgId: out.length + 1, firstPosition: out.length + 1 }).decisions);
  }
  return out;
}

describe('outbox feeder', () => {
  it('writes one KAFKA_MSG row per change in log order and one KAFKA_SCHD row per touched flight', async () => {
    const decisions = corpusDecisions();
    await appendAll(db.pool, decisions);
    const watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    const heard = new Set<string>();
    watcher.on('notification', (n) => heard.add(String(n.payload)));
    await watcher.query('LISTEN msgx_outbox');
    try {
      await drain(createOutboxFeeder({ tz: TZ, clock }), 4);
      const want = expected(decisions);

      const msg = await outbox('KAFKA_MSG');
      expect(msg.map((r) => [r.source_position, r.seq, r.flid])).toEqual(want.msg.map((m) => [m.position, m.seq, m.flid]));
      expect(msg.length).toBeGreaterThan(40);
      for (const [i, r] of msg.entries()) {
        const m = want.msg[i]!;
        expect(r.payload).toEqual({
          type: m.change.type, flid: m.flid, position: m.position, msgId: m.msgId,
          recordedAt: formatOutward(decisions[Number(m.position) - 1]!.recordedAt.toISOString(), TZ), change: toChangeView(m.change, TZ),
        });
        expect(JSON.stringify(r.payload)).not.toMatch(UTC_INSTANT);
        expect(r.headers).toEqual({ msgId: m.msgId, position: m.position });
        expect(r.msg_id).toBe(m.msgId);
      }
      // Plan snapshot summaries have no flight: no key.
      expect(msg.filter((r) => r.payload.type === 'PlanSnapshotApplied').every((r) => r.flid === null)).toBe(true);
      expect(msg.some((r) => r.payload.type === 'PlanSnapshotApplied')).toBe(true);

      const schd = await outbox('KAFKA_SCHD');
      expect(schd.map((r) => [r.source_position, r.flid])).toEqual(want.schd.map((s) => [s.position, s.flid]));
      schd.forEach((r, i) => expect(r.payload).toEqual(want.schd[i]!.view));
      expect(JSON.stringify(schd.map((r) => r.payload))).not.toMatch(UTC_INSTANT);
      expect(JSON.stringify(schd.map((r) => r.payload))).toContain('+08:00');

      expect(await outbox('COUTMSGS')).toEqual([]);
      await waitFor(() => heard.has('KAFKA_MSG') && heard.has('KAFKA_SCHD'), { what: 'msgx_outbox notifications' });
      expect(heard.has('COUTMSGS')).toBe(false);
    } finally {
      await watcher.end();
    }
  });

  it('adds nothing when the same positions are fed again, and folds correctly afterwards', async () => {
    const decisions = corpusDecisions();
    const head = decisions.slice(0, 30);
    await appendAll(db.pool, head);
    const feeder = createOutboxFeeder({ tz: TZ, clock });
    await drain(feeder, 7);
    const count = async () => (await db.pool.query('SELECT count(*)::int AS n FROM msg_event')).rows[0].n as number;
    const before = await count();
    expect(before).toBeGreaterThan(0);

    // Operator rewinds the checkpoint: the same feeder and a fresh one re-read everything.
    await db.pool.query("UPDATE projection_checkpoint SET position = 0 WHERE name = 'outbox'");
    await drain(feeder, 7);
    expect(await count()).toBe(before);
    await db.pool.query("UPDATE projection_checkpoint SET position = 11 WHERE name = 'outbox'");
    await drain(createOutboxFeeder({ tz: TZ, clock }), 3);
    expect(await count()).toBe(before);

    // The rewound fold is right: the next decisions' KAFKA_SCHD rows carry the correct states.
    await appendAll(db.pool, decisions.slice(30));
    await drain(feeder, 7);
    const want = expected(decisions);
    const schd = await outbox('KAFKA_SCHD');
    expect(schd.map((r) => [r.source_position, r.flid, r.payload])).toEqual(want.schd.map((s) => [s.position, s.flid, s.view]));
    expect(await readCheckpoint(db.pool, 'outbox')).toBe(String(decisions.length));
  });

  it('starts from a shared fold ahead of its checkpoint and holds its objects, writing the same rows as its own fold would', async () => {
    const decisions = corpusDecisions();
    await appendAll(db.pool, decisions.slice(0, 20));
    await drain(createOutboxFeeder({ tz: TZ, clock }), 6); // checkpoint 20, a fold of its own
    await appendAll(db.pool, decisions.slice(20));
    // The pump's write model, already at position 35 (folded in memory, as the pump does).
    const model = new Map<string, FlightState>();
    decisions.slice(0, 35).forEach((d, i) => {
      const changes = d.payload.changes ?? [];
      if (changes.length > 0) applyDecision(model, { position: String(i + 1), msgId: d.msgId, recordedAt: d.recordedAt.toISOString(), changes });
    });
    const shared = { position: '35', flights: model };
    const feeder = createOutboxFeeder({ tz: TZ, clock, shared });
    await drain(feeder, 6);

    const want = expected(decisions);
    const schd = await outbox('KAFKA_SCHD');
    expect(schd.map((r) => [r.source_position, r.flid, r.payload])).toEqual(want.schd.map((s) => [s.position, s.flid, s.view]));
    expect((await outbox('KAFKA_MSG')).map((r) => [r.source_position, r.seq])).toEqual(want.msg.map((m) => [m.position, m.seq]));
    // Every flight at the same decision in both folds is one object; the others are its own.
    const same = [...feeder.flights()].filter(([flid, s]) => model.get(flid)?.lastPosition === s.lastPosition);
    expect(same.length).toBeGreaterThan(0);
    for (const [flid, s] of same) expect(s).toBe(model.get(flid));
    expect([...feeder.flights()].some(([flid, s]) => s !== model.get(flid))).toBe(true); // changed after 35

    // A shared fold behind the checkpoint is not used: the feeder folds the log itself.
    await db.pool.query("UPDATE projection_checkpoint SET position = 30 WHERE name = 'outbox'");
    const behind = createOutboxFeeder({ tz: TZ, clock, shared: { position: '10', flights: new Map() } });
    await drain(behind, 50);
    expect(Object.fromEntries(behind.flights())).toEqual(Object.fromEntries(feeder.flights()));
  });

  it('takes the flights of a decision the shared fold holds as of that decision from it, without folding the decision again', async () => {
    const decisions = corpusDecisions();
    await appendAll(db.pool, decisions);
    const model = new Map<string, FlightState>();
    const touchedAt = new Map<string, string[]>();
    decisions.forEach((d, i) => {
      const changes = d.payload.changes ?? [];
      if (changes.length > 0) touchedAt.set(String(i + 1), [...applyDecision(model, { position: String(i + 1), msgId: d.msgId, recordedAt: d.recordedAt.toISOString(), changes })]);
    });
    // A decision whose flights the shared fold holds as of that very decision (none changed after it).
    const [position, flids] = [...touchedAt].reverse().find(([p, fs]) => fs.length > 0 && fs.every((f) => model.get(f)?.lastPosition === p))!;
    // Marked, so that rows made from the shared states tell themselves apart from a second fold's.
    for (const flid of flids) model.set(flid, { ...model.get(flid)!, airline: 'ZZ' });
    const feeder = createOutboxFeeder({ tz: TZ, clock, shared: { position: String(decisions.length), flights: model } });
    folded.positions.length = 0;
    await drain(feeder, 50);
    expect(folded.positions).not.toContain(position);

    const schd = await outbox('KAFKA_SCHD');
    const there = schd.filter((r) => r.source_position === position);
    expect(there.map((r) => r.flid)).toEqual(flids);
    for (const r of there) expect(r.payload.airline).toBe('ZZ');
    expect(schd.filter((r) => r.source_position !== position && r.payload.airline === 'ZZ')).toEqual([]);
    for (const flid of flids) expect(feeder.flights().get(flid)).toBe(model.get(flid));
  });

  it('restores its fold when a batch rolls back', async () => {
    const decisions = decideMessages(readScenario('01-plan-and-operations').files.map((f) => f.xml)).decisions;
    await appendAll(db.pool, decisions);
    let broken = true;
    const failing: CoutmsgsRoute = ({ event }) => {
      if (broken && event.position === '6') throw new Error('route failed');
      return null;
    };
    const feeder = createOutboxFeeder({ tz: TZ, clock, routes: [failing] });
    await runBatch(db.pool, feeder, { batchSize: 4, clock }); // positions 1-4
    await expect(runBatch(db.pool, feeder, { batchSize: 4, clock })).rejects.toThrow('route failed'); // 5-8 roll back
    expect(await readCheckpoint(db.pool, 'outbox')).toBe('4');
    broken = false;
    await drain(feeder, 4);
    const want = expected(decisions);
    const schd = await outbox('KAFKA_SCHD');
    // Had the failed batch stayed in the fold, state versions would be bumped twice.
    expect(schd.map((r) => r.payload)).toEqual(want.schd.map((s) => s.view));
  });

  it('writes COUTMSGS rows only where a route is configured', async () => {
    const decisions = decideMessages(readScenario('01-plan-and-operations').files.map((f) => f.xml)).decisions;
    await appendAll(db.pool, decisions);
    const onDelete: CoutmsgsRoute = ({ change, flight }) =>
      change.type === 'FlightDeleted' ? { clobMsg: `<DEL flid="${change.flid}" version="${flight?.stateVersion}"/>` } : null;
    await drain(createOutboxFeeder({ tz: TZ, clock, routes: [onDelete] }));
    const rows = await outbox('COUTMSGS');
    expect(rows.map((r) => [r.source_position, r.seq, r.flid])).toEqual([['33', 0, '880004']]);
    expect(rows[0]!.payload.clobMsg).toMatch(/^<DEL flid="880004" version="\d+"\/>$/);
  });

  it('feeds no rows for decisions without changes and none for FlightsArchived, but folds the archive', async () => {
    const decisions = decideMessages(readScenario('02-bad-input-and-duplicates').files.map((f) => f.xml)).decisions;
    decisions.push({
      msgId: null, kind: 'FlightsArchived', recordedAt: new Date('2025-03-20T00:00:00Z'),
      payload: { changes: [{ type: 'FlightsArchived', flids: ['881001'], beforeDay: '2025-03-15' }], keepDays: 5 },
    });
    await appendAll(db.pool, decisions);
    const feeder = createOutboxFeeder({ tz: TZ, clock });
    await drain(feeder);
    const { rows } = await db.pool.query('SELECT DISTINCT source_position::int AS p FROM msg_event ORDER BY 1');
    const applied = decisions.flatMap((d, i) => (d.kind === 'Applied' ? [i + 1] : []));
    expect(rows.map((r) => r.p)).toEqual(applied);
    expect(feeder.flights().has('881001')).toBe(false);
  });
});

describe('outbox feeder over an archived month', () => {
  const ARCHIVED = 20;
  const DIR = path.join(os.tmpdir(), `msgx-outbox-archive-${process.pid}`);

  /** The corpus with its first ARCHIVED decisions in January 2026, the rest in February; a snapshot at ARCHIVED; January archived. */
  async function archivedLog(): Promise<DecisionInput[]> {
    const decisions = corpusDecisions().map((d, i) => ({
      ...d, recordedAt: new Date(Date.parse(i < ARCHIVED ? '2026-01-05T00:00:00Z' : '2026-02-05T00:00:00Z') + i * 60_000),
    }));
    for (const m of ['2026-01-01', '2026-02-01']) {
      for (const { table } of HISTORY_TABLES) await db.pool.query('SELECT msgx_month_partition($1, $2::date)', [table, m]);
    }
    await appendAll(db.pool, decisions);
    const image = (await foldModelUpTo(db.pool, String(ARCHIVED))).capture();
    await saveSnapshot(db.pool, {
      position: image.position, fingerprint: foldFingerprint(), latestDay: image.latestDay, flights: image.flights.size, body: await encodeImage(image), writeMs: 1,
    });
    const done = await archiveHistory({ pool: db.pool, log: silentLogger, faults: noFaults, now: () => new Date('2026-03-10T00:00:00Z') }, '2026-02', DIR, 'test');
    expect(done.map((m) => m.month)).toEqual(['2026-01']);
    return decisions;
  }

  const schdAfter = async (position: number) =>
    (await outbox('KAFKA_SCHD')).filter((r) => Number(r.source_position) > position).map((r) => [r.source_position, r.flid, r.payload]);
  const wantAfter = (decisions: readonly DecisionInput[], position: number) =>
    expected(decisions).schd.filter((s) => Number(s.position) > position).map((s) => [s.position, s.flid, s.view]);

  afterEach(async () => {
    await rm(DIR, { recursive: true, force: true });
  });

  it('folds from the newest snapshot: without one it refuses, naming the restore command', async () => {
    const decisions = await archivedLog();
    await db.pool.query("INSERT INTO projection_checkpoint (name, position) VALUES ('outbox', 25) ON CONFLICT (name) DO UPDATE SET position = 25");
    await expect(runBatch(db.pool, createOutboxFeeder({ tz: TZ, clock }), { batchSize: 5, clock })).rejects.toThrow(
      `the outbox feeder's fold up to position 25 reads the log from position 0, but positions up to ${ARCHIVED} are archived (2026-01); restore it first: msgx restore ${path.join(DIR, 'msgx-history-2026-01.sha256')}`,
    );
    await drain(createOutboxFeeder({ tz: TZ, clock, snapshot: newestImage }));
    expect(await schdAfter(25)).toEqual(wantAfter(decisions, 25));
  });

  it('folds the flights changed after its checkpoint from the snapshot when it starts from the shared fold', async () => {
    const decisions = await archivedLog();
    await db.pool.query("INSERT INTO projection_checkpoint (name, position) VALUES ('outbox', 25) ON CONFLICT (name) DO UPDATE SET position = 25");
    const model = new Map<string, FlightState>();
    decisions.slice(0, 35).forEach((d, i) => {
      const changes = d.payload.changes ?? [];
      if (changes.length > 0) applyDecision(model, { position: String(i + 1), msgId: d.msgId, recordedAt: d.recordedAt.toISOString(), changes });
    });
    const shared = { position: '35', flights: model };
    await expect(runBatch(db.pool, createOutboxFeeder({ tz: TZ, clock, shared }), { batchSize: 5, clock })).rejects.toThrow(/restore it first: msgx restore /);
    await drain(createOutboxFeeder({ tz: TZ, clock, shared, snapshot: newestImage }));
    expect(await schdAfter(25)).toEqual(wantAfter(decisions, 25));
  });
});
