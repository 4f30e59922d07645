/**
 * Write-model snapshots and the warm standby against a real PostgreSQL (docs/recovery.md
 * "Write-model snapshots", docs/operations.md "Warm standby"): the writer records them as it
 * decides, a start takes the newest one of its own fold code and folds only the rest, one of other
 * fold code or a broken one is never used (one log line says so), a crash while one is written
 * leaves the previous ones, and a standby's model follows the log while it waits.
 */
import { describe, expect, it } from 'vitest';
import { createWriterServices } from '../../src/cli/writerServices.ts';
import type { FaultPoint } from '../../src/platform/faults.ts';
import type { Runtime } from '../../src/platform/runtime.ts';
import type { Service } from '../../src/platform/service.ts';
import { WriteModel } from '../../src/write/pump/writeModel.ts';
import { foldFingerprint } from '../../src/write/snapshot/foldFingerprint.ts';
import { createModelFollower } from '../../src/write/snapshot/modelFollower.ts';
import { checkSnapshot } from '../../src/write/snapshot/checkSnapshot.ts';
import { logHead as headPosition } from '../../src/log/head.ts';
import { runCheck } from '../../src/consistency/runCheck.ts';
import { formatReport } from '../../src/consistency/report.ts';
import { saveSnapshot } from '../../src/write/snapshot/saveSnapshot.ts';
import { encodeImage } from '../../src/write/snapshot/snapshotCodec.ts';
import { newestImage, warmModel } from '../../src/write/snapshot/warmModel.ts';
import { captureLog } from '../reliability/support/captureLog.ts';
import { waitFor } from '../support/waitFor.ts';
import { generateTraffic } from './support/traffic.ts';
import { digest } from '../reliability/support/crashChecks.ts';
import { decisions, insertCminmsgsBulk, resetStores, unfinished, writeStage } from './support/writeHarness.ts';

const stage = writeStage('snapshots', { afterEachTest: (db) => db.pool.query('TRUNCATE write_model_snapshot') });

interface Running {
  readonly model: WriteModel;
  readonly snapshots: { idle(): Promise<void> };
  stop(): Promise<void>;
}

/** The writer's core services as createWriterServices wires them — write model, ingest, pump, snapshots, backfill — started. */
async function startCore(rt: Runtime): Promise<Running> {
  const ws = createWriterServices(rt, { parts: 'core' });
  const started: Service[] = [];
  for (const s of ws.services) {
    await s.start();
    started.push(s);
  }
  return {
    model: ws.model,
    snapshots: ws.snapshots,
    async stop() {
      for (const s of started.reverse()) await s.stop();
    },
  };
}

const ingested = async () => Number((await stage.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM inbox_message')).rows[0]!.n);

/** Wait until the `total` messages in CMINMSGS are ingested and decided, the model at the head, and no snapshot being written. */
async function decideAll(rt: Runtime, w: Running, total: number): Promise<void> {
  await waitFor(
    async () => (await ingested()) === total && (await unfinished(stage.db)) === 0 && (await headPosition(rt.pool)) === w.model.position,
    { timeoutMs: 60_000, what: 'every message decided' },
  );
  await w.snapshots.idle();
}

const snapshotRows = async () =>
  (await stage.db.pool.query<{ position: string; fingerprint: string; flights: number; bytes: number }>(
    'SELECT position, fingerprint, flights, bytes FROM write_model_snapshot ORDER BY position',
  )).rows;

/** What a model holds, comparable across a snapshot (key order and unset sources keys aside). */
const contents = (m: WriteModel) => ({
  position: m.position,
  latestDay: m.latestDay,
  flights: JSON.parse(JSON.stringify([...m.flights.values()].sort((a, b) => (a.flid < b.flid ? -1 : 1)))),
  reference: [...m.reference],
  planRequests: [...m.planRequests],
});

async function foldedFromZero(): Promise<WriteModel> {
  const m = new WriteModel();
  await m.catchUp(stage.db.pool);
  return m;
}

describe('write-model snapshots', () => {
  it('are recorded every MSGX_SNAPSHOT_EVERY decisions (the newest 3 kept); a start takes the newest and folds only the rest, equal to a fold from 0', { timeout: 120_000 }, async () => {
    const rt = stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '40' } });
    await insertCminmsgsBulk(stage.my, generateTraffic(300));
    const w = await startCore(rt);
    await decideAll(rt, w, 300);
    await w.stop();

    const rows = await snapshotRows();
    expect(rows.length).toBe(3);
    expect(rows.every((r) => r.fingerprint === foldFingerprint() && r.bytes > 0 && r.flights === 40)).toBe(true);
    const head = await headPosition(rt.pool);
    const newest = rows.at(-1)!.position;
    expect(BigInt(head) - BigInt(newest)).toBeLessThan(40n + 10n);

    const cap = captureLog('info');
    const m = new WriteModel();
    const warmed = await warmModel(rt.pool, m, cap.log);
    expect(warmed).toMatchObject({ snapshot: newest, folded: Number(BigInt(head) - BigInt(newest)) });
    // The start read the snapshot's head; its days arrive beside it, one at a time (a decision waits for the ones it reads).
    expect(await m.ready(rt.pool)).toBeUndefined();
    expect(await m.readable()).toBe(true);
    expect(cap.text()).toContain('write model: snapshot flights fetched');
    expect(contents(m)).toEqual(contents(await foldedFromZero()));
    expect(cap.text()).toContain('write model caught up');

    // A reload (a projection rebuild asks the pump for one) starts from the newest snapshot too.
    const reloading = new WriteModel({ newestImage });
    await reloading.catchUp(rt.pool);
    expect(await reloading.reload(rt.pool)).toBe(Number(BigInt(head) - BigInt(newest)));
    expect(contents(reloading)).toEqual(contents(m));
    expect(await new WriteModel().reload(rt.pool)).toBe(Number(head));

    // msgx verify --all and the sample check agree with it.
    expect(await checkSnapshot(rt.pool, head, { whole: true, ratio: 1 })).toMatchObject({ position: newest, flights: 40, mismatches: [] });
    expect(await checkSnapshot(rt.pool, head, { whole: false, ratio: 0.01 })).toMatchObject({ position: newest, flights: 20, mismatches: [] });
    // As msgx verify hands it to runCheck (no projectors ran here: only the snapshot's part is looked at).
    const report = await runCheck(rt.pool, { selection: { kind: 'all' }, clock: rt.clock, snapshot: checkSnapshot });
    expect(report.checked.snapshot).toEqual({ position: newest, flights: 40 });
    expect(report.mismatches.filter((x) => x.check === 'snapshot')).toEqual([]);
    expect(formatReport(report)).toContain(`40 flight(s) of the write-model snapshot at position ${newest}`);
  });

  it('a snapshot that does not match the log is reported by the check, naming the flight and field', { timeout: 60_000 }, async () => {
    const rt = stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '1000' } });
    await insertCminmsgsBulk(stage.my, generateTraffic(60, 5));
    const w = await startCore(rt);
    await decideAll(rt, w, 60);
    await w.stop();
    const m = await foldedFromZero();
    // A snapshot written by a buggy fold: one flight's stand is not what the log says.
    const image = m.capture();
    const [flid, state] = [...image.flights][0]!;
    const flights = new Map(image.flights).set(flid, { ...state, currentStand: 'WRONG' });
    const body = await encodeImage({ ...image, flights });
    await saveSnapshot(rt.pool, { position: image.position, fingerprint: foldFingerprint(), latestDay: image.latestDay, flights: flights.size, body, writeMs: 1 });
    const head = await headPosition(rt.pool);
    for (const whole of [true, false]) {
      const r = await checkSnapshot(rt.pool, head, { whole, ratio: 1 });
      expect(r.mismatches).toEqual([{ check: 'snapshot', position: image.position, part: `flight ${flid} currentStand`, log: state.currentStand, row: 'WRONG' }]);
    }
  });

  it('one of other fold code, or one that cannot be read, is never used: the start folds from 0 and says why in one line', { timeout: 60_000 }, async () => {
    const rt = stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '20' } });
    await insertCminmsgsBulk(stage.my, generateTraffic(80, 10));
    const w = await startCore(rt);
    await decideAll(rt, w, 80);
    await w.stop();
    const head = await headPosition(rt.pool);
    const expected = contents(await foldedFromZero());

    await stage.db.pool.query(`UPDATE write_model_snapshot SET fingerprint = '0:other-fold-code'`);
    let cap = captureLog('info');
    let m = new WriteModel();
    expect(await warmModel(rt.pool, m, cap.log)).toMatchObject({ snapshot: null, folded: Number(head) });
    expect(contents(m)).toEqual(expected);
    expect(cap.text().match(/made by other fold code and are never used; folding the log from position 0/g)).toHaveLength(1);

    await stage.db.pool.query(`UPDATE write_model_snapshot SET fingerprint = $1, body = '\\x1f8b00'::bytea`, [foldFingerprint()]);
    cap = captureLog('info');
    m = new WriteModel();
    expect(await warmModel(rt.pool, m, cap.log)).toMatchObject({ snapshot: null, folded: Number(head) });
    expect(contents(m)).toEqual(expected);
    expect(cap.text()).toContain('snapshot cannot be read; folding the log from position 0');
  });

  it('one whose day chunk is corrupt: the writer folds from the log, says so in one line, and decides as an uninterrupted run', { timeout: 180_000 }, async () => {
    const traffic = generateTraffic(300, 20);
    // The uninterrupted run.
    const rt0 = stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '40' } });
    await insertCminmsgsBulk(stage.my, traffic);
    const w0 = await startCore(rt0);
    await decideAll(rt0, w0, 300);
    await w0.stop();
    await rt0.close();
    const reference = digest(await decisions(stage.db));
    await stage.db.pool.query('TRUNCATE write_model_snapshot');
    await resetStores(stage.db, stage.my);

    // Half of it, then the newest snapshot's last day chunk damaged (its length kept: only the bytes are wrong).
    const rt1 = stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '40' } });
    await insertCminmsgsBulk(stage.my, traffic.slice(0, 150));
    const w1 = await startCore(rt1);
    await decideAll(rt1, w1, 150);
    await w1.stop();
    await rt1.close();
    const damaged = await stage.db.pool.query<{ position: string }>(
      `UPDATE write_model_snapshot SET body = overlay(body PLACING decode(repeat('00', 16), 'hex') FROM octet_length(body) - 40 FOR 16)
        WHERE id = (SELECT max(id) FROM write_model_snapshot) RETURNING position::text AS position`,
    );
    expect(damaged.rows).toHaveLength(1);

    // The rest through a writer that starts from it.
    const cap = captureLog('info');
    const rt2 = { ...stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '1000' } }), log: cap.log };
    await insertCminmsgsBulk(stage.my, traffic.slice(150));
    const w2 = await startCore(rt2);
    await decideAll(rt2, w2, 300);
    await w2.stop();
    expect(digest(await decisions(stage.db))).toEqual(reference);
    expect(contents(w2.model)).toEqual(contents(await foldedFromZero()));
    expect(cap.text().match(/snapshot flights (cannot|could not) be read/g)).toEqual(['snapshot flights cannot be read']);
    expect(cap.text()).toContain('the snapshot flights cannot be read; folded the log again before deciding');
  });

  it('a crash while a snapshot is written (before its COMMIT) leaves the previous ones whole, and the next start uses the newest of them', { timeout: 120_000 }, async () => {
    await insertCminmsgsBulk(stage.my, generateTraffic(200));
    const rt1 = stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '50' } });
    const w1 = await startCore(rt1);
    await decideAll(rt1, w1, 200);
    await w1.stop();
    const before = await snapshotRows();
    expect(before.length).toBeGreaterThan(0);

    // More traffic through a writer whose every snapshot transaction dies after its INSERT.
    await insertCminmsgsBulk(stage.my, generateTraffic(400).slice(200));
    let crashes = 0;
    const dying = {
      reached(point: FaultPoint) {
        if (point === 'snapshot.inserted') {
          crashes++;
          throw new Error('killed while writing a snapshot');
        }
      },
    };
    const rt2: Runtime = { ...stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '50' } }), faults: dying };
    const w2 = await startCore(rt2);
    await decideAll(rt2, w2, 400);
    await w2.stop();
    expect(crashes).toBeGreaterThan(0);
    expect(await snapshotRows()).toEqual(before);

    const m = new WriteModel();
    expect(await warmModel(rt2.pool, m, captureLog('info').log)).toMatchObject({ snapshot: before.at(-1)!.position });
    expect(await m.readable()).toBe(true);
    expect(contents(m)).toEqual(contents(await foldedFromZero()));
  });
});

describe('warm standby', () => {
  it("follows the writer's decisions while it waits, so that on taking over it folds only what came after its model", { timeout: 120_000 }, async () => {
    const rt = stage.runtime({ env: { MSGX_SNAPSHOT_EVERY: '50' } });
    await insertCminmsgsBulk(stage.my, generateTraffic(100));
    const w = await startCore(rt);
    await decideAll(rt, w, 100);

    const standbyModel = new WriteModel();
    const follower = createModelFollower(rt, standbyModel, { follow: true });
    await follower.start();
    expect(standbyModel.position).toBe(await headPosition(rt.pool));
    // The writer decides on; the standby's model follows (NOTIFY msgx_decision, or its poll).
    await insertCminmsgsBulk(stage.my, generateTraffic(250).slice(100));
    await decideAll(rt, w, 250);
    const head = await headPosition(rt.pool);
    await waitFor(() => standbyModel.position === head, { timeoutMs: 30_000, what: 'the standby model at the head' });
    await follower.stop();
    await w.stop();
    expect(contents(standbyModel)).toEqual(contents(await foldedFromZero()));
    // Taking over: the writer's services on the standby's model fold nothing they already have.
    const warmed = await warmModel(rt.pool, standbyModel, captureLog('info').log);
    expect(warmed).toMatchObject({ snapshot: null, folded: 0 });
  });
});
