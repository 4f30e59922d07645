/**
 * The crash matrix (docs/recovery.md, "Crash points"): `msgx start` as a child process against
 * real PostgreSQL, real MariaDB (CMINMSGS) and the in-process Kafka test broker, fed ≥ 1,000
 * generated messages (DNLD, every FLOP subtype, AIDX updates of the plan's flights, duplicates,
 * bad input, unknown flights), killed
 * at every named crash point and at random moments, restarted, drained — then compared with an
 * uninterrupted reference run.
 *
 * `npm test` makes one run with three kills; `npm run test:soak` (MSGX_SOAK=1) makes 20
 * consecutive runs (MSGX_SOAK_RUNS to change that), each killing at every named point and at three
 * random moments. A run draws its traffic, kill order, hit counts and random thresholds from its
 * seed (random unless MSGX_CRASH_SEED is set; the seed is in the test name for reproduction).
 * MSGX_TEST_TIMING=1 prints a summary line per run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archivedDecisions } from '../../src/log/archivedHistory.ts';
import { partitionName } from '../../src/log/historyMonths.ts';
import { verifyFiles } from '../../src/operations/archive/archiveHistory.ts';
import { foldFingerprint } from '../../src/write/snapshot/foldFingerprint.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { monthRows, seedMonth, snapshotAtHead } from '../support/historyMonths.ts';
import { runMsgx } from '../support/msgxProcess.ts';
import { CRASH_AT_OPTION } from './support/crashFaults.ts';
import { HANDLERS } from '../../src/domain/handlers/registry.ts';
import type { FlightCreated } from '../../src/domain/changes.ts';
import { expandCreated } from '../../src/domain/compactChange.ts';
import type { StoredRecord } from '../support/kafka/broker.ts';
import type { DecisionRow } from '../write/support/writeHarness.ts';
import { killingFaults, parseCrashAt } from './support/crashFaults.ts';
import { checkMsgTopic, decisionDifferences, digest, snapshotDifferences } from './support/crashChecks.ts';
import { MATRIX_POINTS, type PlanOptions } from './support/crashPlan.ts';
import { CRASH_TZ, runCrashMatrix, summarize } from './support/crashRun.ts';

const SOAK = process.env.MSGX_SOAK === '1';
const RUNS = SOAK ? Number(process.env.MSGX_SOAK_RUNS ?? 20) : 1;
const FIRST_SEED = process.env.MSGX_CRASH_SEED ? Number(process.env.MSGX_CRASH_SEED) : 1 + Math.floor(Math.random() * 1_000_000);
/** Soak: every named point in every run, plus random moments. npm test: three kills, two of them at points drawn by the seed. */
const PLAN: PlanOptions = SOAK
  ? { points: MATRIX_POINTS, pointKills: MATRIX_POINTS.length, randomKills: 3, maxHit: 3 }
  : { points: MATRIX_POINTS, pointKills: 2, randomKills: 1, maxHit: 2 };
// The flight handlers the generated day exercises: every FLOP, the SCHD plan and AIDX (reference-data
// handlers, which also have a DNLD subtype, are not part of this traffic).
const EVERY_HANDLER = Object.values(HANDLERS)
  .filter((h) => h.type === 'FLOP' || h.type === 'AIDX' || (h.type === 'SCHD' && h.styp === 'DNLD'))
  .map((h) => h.name);

describe('the crash fault port (crashMain.ts --crash-at)', () => {
  it('names one point and hit; a bad value is refused naming the option', () => {
    expect(parseCrashAt('pump.committed:2')).toEqual({ point: 'pump.committed', hit: 2 });
    expect(parseCrashAt('delivery.KAFKA_MSG.acked:1')).toEqual({ point: 'delivery.KAFKA_MSG.acked', hit: 1 });
    for (const bad of ['', 'pump.committed', 'pump.committed:0', 'pump:1', 'pump.committed:x']) {
      expect(() => parseCrashAt(bad)).toThrow(/--crash-at/);
    }
  });

  it('kills on the armed hit of the armed point only, once', () => {
    let kills = 0;
    const faults = killingFaults({ point: 'pump.committed', hit: 3 }, () => kills++);
    const seen: number[] = [];
    for (const point of ['pump.committed', 'pump.uncommitted', 'pump.committed', 'ingest.committed', 'pump.committed', 'pump.committed'] as const) {
      faults.reached(point);
      seen.push(kills);
    }
    expect(seen).toEqual([0, 0, 0, 0, 1, 1]);
  });
});

describe('the crash matrix checks themselves', () => {
  const created = { type: 'FlightCreated', flid: '1', fields: { currentStand: 'A', estimatedTime: '2025-03-14T01:30:00.000Z' }, lists: {} };
  const updated = { type: 'FlightUpdated', flid: '1', fields: { stand: 'B' } };
  const other = { type: 'FlightUpdated', flid: '2', fields: { stand: 'C' } };
  const plan = { type: 'PlanSnapshotApplied', day: '2025-03-14', windowStart: null, windowEnd: null };
  const log: DecisionRow[] = [
    { position: '1', msg_id: '10', kind: 'Applied', payload: { changes: [created, updated] } },
    { position: '2', msg_id: '11', kind: 'Failed', payload: { errorClass: 'CODEC_ERROR' } },
    { position: '3', msg_id: '11', kind: 'Applied', payload: { changes: [other, plan] } },
  ];
  let offset = 0n;
  const rec = (eventId: string, position: string, change: { readonly flid?: string; readonly [k: string]: unknown }, msgId = position === '1' ? '10' : '11'): StoredRecord => ({
    partition: 0, offset: offset++, key: change.flid ?? null, timestamp: 0,
    value: JSON.stringify({ type: 'x', flid: change.flid ?? null, position, msgId, change }),
    headers: { 'event-id': eventId, 'log-position': position, 'msg-id': msgId },
  });
  // On msg a created flight is full (the log stores it compact: docs/projections.md "Big decisions")
  // and the instants carry the airport offset.
  const full = expandCreated(created as unknown as FlightCreated);
  const createdOut = { ...full, fields: { ...full.fields, estimatedTime: '2025-03-14T09:30:00+08:00' } };
  const good = () => [rec('1', '1', createdOut), rec('2', '1', updated), rec('3', '3', other), rec('4', '3', plan)];
  const check = (records: StoredRecord[]) => checkMsgTopic(log, records, CRASH_TZ);

  it('accept every change once, in order, and re-sent copies of the same event', () => {
    const r = check([...good(), rec('2', '1', updated), rec('3', '3', other)]);
    expect(r).toMatchObject({ problems: [], changes: 4, records: 6, duplicates: 2 });
  });

  it('report a change whose instants are not shown with the airport offset', () => {
    const [, b, c, d] = good();
    expect(check([rec('1', '1', created), b!, c!, d!]).problems).toEqual([expect.stringMatching(/^flight 1: .* first difference at #0/)]);
  });

  it('report a lost change, a flight out of order, a re-send with other content and a wrong header', () => {
    const [a, b, c, d] = good();
    expect(check([a!, c!, d!]).problems).toEqual([expect.stringMatching(/^flight 1: 1 changes on msg, 2 in the log/)]);
    expect(check([b!, a!, c!, d!]).problems).toEqual([expect.stringMatching(/^flight 1: .* first difference at #0/)]);
    expect(check([...good(), { ...a!, value: a!.value!.replace('"A"', '"Z"') }]).problems).toEqual(['event 1 sent again with other content']);
    expect(check([a!, b!, rec('3', '3', other, '99'), d!]).problems).toEqual([expect.stringMatching(/^event 3: msg-id header 99/)]);
  });

  it('compare decisions per message in order, and read-model rows per table', () => {
    const swapped = digest([log[0]!, log[2]!, log[1]!].map((d, i) => ({ ...d, position: String(i + 1) })));
    expect(decisionDifferences(digest(log), digest(log))).toEqual([]);
    expect(decisionDifferences(digest(log), swapped)).toEqual([expect.stringMatching(/^msg 11: /)]);
    expect(snapshotDifferences({ t: ['a', 'b'] }, { t: ['a', 'b'] })).toEqual([]);
    expect(snapshotDifferences({ t: ['a', 'b'] }, { t: ['a', 'c'] })).toEqual(['t: live 2 rows, rebuilt 2; only live: b; only rebuilt: c']);
  });
});

describe(`crash matrix: msgx killed at ${PLAN.pointKills} named crash points and ${PLAN.randomKills} random moments per run`, () => {
  for (let i = 0; i < RUNS; i++) {
    const seed = FIRST_SEED + i;
    // Measured (2 cores, other suites running): see docs/recovery.md. The timeout leaves room for a busy host.
    it(`run ${i + 1}/${RUNS}, seed ${seed}: same decisions and flights as an uninterrupted run (history sweep included), every change on Kafka, read models = rebuild, backfill complete`, { timeout: SOAK ? 600_000 : 300_000 }, async () => {
      const r = await runCrashMatrix(seed, PLAN);
      if (SOAK || process.env.MSGX_TEST_TIMING) process.stderr.write(`${summarize(r)}\n`);

      // The traffic really had it all, and every planned kill happened where it was meant to.
      expect(r.messages).toBeGreaterThanOrEqual(1000);
      expect(r.outcomes.kinds).toEqual(['Applied', 'Dead', 'FlightsArchived', 'Parked', 'Skipped']);
      expect(r.outcomes.deadClasses).toEqual(['MALFORMED']);
      expect(r.outcomes.reasons).toEqual(expect.arrayContaining(['duplicate-of', 'unknown-flight']));
      expect(r.outcomes.handlers).toEqual(expect.arrayContaining(EVERY_HANDLER));
      const hooked = r.kills.filter((k) => k.how === 'hook').map((k) => k.kill.replace(/:\d+$/, ''));
      expect(hooked).toHaveLength(PLAN.pointKills);
      expect(new Set(hooked).size).toBe(PLAN.pointKills);
      expect(MATRIX_POINTS).toEqual(expect.arrayContaining(hooked));
      expect(r.kills).toHaveLength(PLAN.pointKills + PLAN.randomKills);
      expect(r.kafka.changes).toBeGreaterThan(500);

      // The history sweep came once, on traffic time, behind the far flight (default keep window).
      expect(r.sweeps).toEqual([expect.objectContaining({ keepDays: 30, latestDay: '2025-04-23' })]);

      // Snapshots were written (and some restarts started from one), each equal to the log up to its position.
      expect(r.snapshotsStored).toBeGreaterThan(0);
      expect(r.problems).toEqual({ decisions: [], flights: [], log: [], msgTopic: [], schd: [], readModels: [], backfill: [], snapshots: [], process: [] });
    });
  }
});

/**
 * `msgx archive` and `msgx restore` as child processes, SIGKILLed at each of their steps
 * (docs/recovery.md "Crashes during archive"): after every kill the month is either whole in the
 * database or in verified files with its HistoryArchived decision — never neither — and the next
 * run finishes it, once.
 */
describe('crash matrix: msgx archive and msgx restore killed at each step', () => {
  const MONTH = '2026-01';
  const PER_MONTH = 60;
  let db: TestDatabase;
  let dir: string;
  let before: Record<string, string[]>;

  beforeAll(async () => {
    db = await createTestDatabase('crasharchive');
    dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-crash-archive-'));
    // In the DEFAULT partitions (no partition of its own), as an import leaves a past month: the
    // first run splits them into months (archive.moving), the restores give it a partition of its own.
    await seedMonth(db.pool, MONTH, 1000, PER_MONTH, { inDefault: true });
    await seedMonth(db.pool, '2026-02', 1000 + PER_MONTH, PER_MONTH);
    await snapshotAtHead(db.pool, foldFingerprint());
    before = await monthRows(db.pool, MONTH);
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const msgx = (args: readonly string[], crashAt?: string) =>
    runMsgx([...(crashAt ? [CRASH_AT_OPTION, crashAt] : []), ...args], { MSGX_DATABASE_URL: db.url, MSGX_LOG_LEVEL: 'warn' }, { script: 'test/reliability/support/crashMain.ts' });
  const archive = (crashAt?: string) => msgx(['archive', '--before', '2026-02', '--dir', dir], crashAt);
  const restore = (crashAt?: string) => msgx(['restore', path.join(dir, `msgx-history-${MONTH}.sha256`)], crashAt);
  /** The month's decisions in the database (in its partition, or in the DEFAULT one before the first run moved them). */
  const inDatabase = async () => (await monthRows(db.pool, MONTH)).decision_event!.length > 0;
  /** The month's archive record not yet undone by a restore (the files and the decision it names). */
  const recorded = async () =>
    (await db.pool.query<{ tbl: string; file: string; sha256: string; rows: string }>(
      `SELECT tbl, file, sha256, rows::text AS rows FROM history_archive WHERE month = $1::date AND restored_at IS NULL ORDER BY tbl`, [`${MONTH}-01`],
    )).rows.map((r) => ({ table: r.tbl, file: r.file, sha256: r.sha256, rows: Number(r.rows) }));
  const decisionsOf = async (kind: string) => Number((await db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM decision_event WHERE kind = $1', [kind])).rows[0]!.n);

  for (const point of ['archive.moving', 'archive.written', 'archive.recorded', 'archive.dropping'] as const) {
    it(`archive killed at ${point}: the month whole in the database or in verified files with its decision; a rerun finishes it once`, { timeout: 300_000 }, async () => {
      const archivedBefore = await decisionsOf('HistoryArchived');
      const killed = await archive(`${point}:1`);
      expect(killed.signal, killed.output).toBe('SIGKILL');
      const record = await recorded();
      if (await inDatabase()) expect(await monthRows(db.pool, MONTH)).toEqual(before);
      else expect(record).toHaveLength(3);
      if (record.length > 0) {
        await verifyFiles(record);
        expect(await decisionsOf('HistoryArchived')).toBe(archivedBefore + 1);
      }
      expect(point === 'archive.written' || point === 'archive.moving' ? record : []).toEqual([]);
      // Killed while splitting the DEFAULT partition: nothing moved.
      if (point === 'archive.moving') expect(await db.pool.query(`SELECT to_regclass($1) AS r`, [partitionName('decision_event', MONTH)])).toMatchObject({ rows: [{ r: null }] });

      const rerun = await archive();
      expect(rerun.code, rerun.output).toBe(0);
      expect(await inDatabase()).toBe(false);
      expect(await decisionsOf('HistoryArchived')).toBe(archivedBefore + 1);
      await verifyFiles(await recorded());
      expect((await archivedDecisions(db.pool)).months.map((m) => m.month)).toEqual([MONTH]);

      // Back for the next row: restore killed before its commit first, then whole.
      const killedRestore = await restore('restore.loaded:1');
      expect(killedRestore.signal, killedRestore.output).toBe('SIGKILL');
      expect(await inDatabase()).toBe(false);
      const restored = await restore();
      expect(restored.code, restored.output).toBe(0);
      expect(await monthRows(db.pool, MONTH)).toEqual(before);
      expect(await archivedDecisions(db.pool)).toEqual({ upTo: '0', months: [] });
    });
  }
});
