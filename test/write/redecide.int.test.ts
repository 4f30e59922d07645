/**
 * msgx redecide (docs/contract/design.md §10) through the whole app: a fake handler bug injected
 * through the pump's handler port writes wrong decisions; after the "deploy" of the fixed handlers
 * the re-decision shows exactly what differs, --apply corrects it through the log while the writer
 * runs, the read model, GraphQL (flight, flightHistory, message) and Kafka follow, and a second
 * run finds nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/domain/changes.ts';
import { decide, type Decider } from '../../src/domain/decide.ts';
import { handlerFor } from '../../src/domain/handlers/registry.ts';
import { applyCorrections } from '../../src/write/redecide/applyCorrections.ts';
import { runRedecide } from '../../src/write/redecide/runRedecide.ts';
import { replay } from '../../src/operations/replay.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { startKafkaBroker, type KafkaTestBroker } from '../support/kafka/broker.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { startApp, type RunningApp } from '../support/testApp.ts';
import { readScenario } from '../support/corpusDir.ts';

/** The bug: ESTT handled one hour late (a handler of the registry, replaced for this test only). */
const HOUR = 3_600_000;
const buggy: Decider = (flights, message) => {
  // …and a BOTM handler that throws (its messages fail CODEC_ERROR until they give up).
  if (message.type === 'FLOP' && message.styp === 'BOTM') throw new Error('BOTM handler bug');
  const d = decide(flights, message);
  if (message.type !== 'FLOP' || message.styp !== 'ESTT') return d;
  const late = (c: Change): Change => {
    if (c.type !== 'FlightUpdated' || typeof c.fields.estimatedTime !== 'string') return c;
    return { ...c, fields: { ...c.fields, estimatedTime: new Date(Date.parse(c.fields.estimatedTime) + HOUR).toISOString() } };
  };
  return { ...d, changes: d.changes.map(late) };
};

const db = fileDatabase('redecide');
let broker: KafkaTestBroker;
let app: RunningApp | undefined;

beforeAll(async () => {
  broker = await startKafkaBroker({ topics: { msg: 1, schd: 1 } });
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
});
afterAll(async () => {
  await broker?.close();
});

const flightQuery = `query($flid: ID!) { flight(flid: $flid) { estimatedTime stateVersion }
  flightHistory(flid: $flid, first: 100) { edges { node { kind position payload } } } }`;

describe('a handler bug fixed, re-decided and corrected', () => {
  it('shows the difference, corrects it through the log, reaches the read API and Kafka, and is idempotent', async () => {
    const scenario = readScenario('01-plan-and-operations');
    const env = { MSGX_KAFKA_BROKERS: broker.brokers[0]! };
    // 1. The day runs with the buggy handlers.
    app = await startApp(db, { env, decide: buggy });
    const ids = await app.send(scenario.files.map((f) => f.xml));
    await app.drained('the day decided with the bug');
    const wrong = await app.gql(flightQuery, { flid: '880001' });
    expect(wrong.data.flight.estimatedTime).toBe('2025-03-14T10:18:00+08:00');
    await app.stop();

    // 2. The fix is deployed: the writer runs with the registry's handlers again.
    app = await startApp(db, { env });
    const cfg = app.rt.cfg;
    const first = await runRedecide(db.pool, { from: { position: '0' } }, { cfg });
    const esttIds = [ids[scenario.files.findIndex((f) => f.name === '002-estt.xml')]!, ids[scenario.files.findIndex((f) => f.name === '018-estt.xml')]!];
    expect(first.report.decided).toBe(scenario.files.length);
    expect(first.report.differingMessages.map((m) => m.msgId)).toEqual(esttIds);
    const m = first.report.differingMessages[0]!;
    expect(m.before).toMatchObject({ kind: 'Applied', errorClass: null, changes: [{ type: 'FlightUpdated', flid: '880001', fields: { estimatedTime: '2025-03-14T02:18:00.000Z' } }] });
    expect(m.after).toMatchObject({ kind: 'Applied', errorClass: null, changes: [{ type: 'FlightUpdated', flid: '880001', fields: { estimatedTime: '2025-03-14T01:18:00.000Z' } }] });
    expect(first.report.differingFlights).toEqual([
      { flid: '880001', fields: { estimatedTime: { before: '2025-03-14T02:18:00.000Z', after: '2025-03-14T01:18:00.000Z' } }, lists: {} },
      { flid: '880002', fields: { estimatedTime: { before: '2025-03-14T04:05:00.000Z', after: '2025-03-14T03:05:00.000Z' } }, lists: {} },
    ]);
    // The failed BOTM decides now: listed apart, for `msgx replay`, not corrected.
    const botmId = ids[scenario.files.findIndex((f) => f.name === '013-botm.xml')]!;
    expect(first.report.replayableMessages).toHaveLength(1);
    expect(first.report.replayableMessages[0]).toMatchObject({ msgId: botmId, after: { kind: 'Applied', errorClass: null } });
    expect(['Dead', 'Parked']).toContain(first.report.replayableMessages[0]!.before.kind);

    // 3. Apply while the writer runs; then live traffic goes on on top of the corrected flight.
    const applied = await applyCorrections(db.pool, first.redecision, { requestedBy: 'test', config: { airportTz: cfg.airportTz }, now: new Date() });
    expect([...applied.positions.keys()]).toEqual(['880001', '880002']);
    const position = applied.positions.get('880001')!;
    await app.drained('corrections projected');
    const fixed = await app.gql(flightQuery, { flid: '880001' });
    expect(fixed.data.flight.estimatedTime).toBe('2025-03-14T09:18:00+08:00');
    const correction = fixed.data.flightHistory.edges.map((e: { node: { kind: string; position: string; payload: string } }) => e.node).find((n: { kind: string }) => n.kind === 'Correction');
    expect(correction.position).toBe(position);
    const payload = JSON.parse(correction.payload);
    expect(payload).toMatchObject({
      reportId: first.report.reportId, from: '0', to: first.report.to, handlerVersions: { 'flopFields.ESTT': handlerFor('FLOP', 'ESTT')!.version },
      supersedes: [{ msgId: esttIds[0] }], changes: [{ type: 'FlightUpdated', flid: '880001', fields: { estimatedTime: '2025-03-14T09:18:00+08:00' } }],
    });

    // message(id) of the re-decided message shows the correction that superseded its outcome.
    const msg = await app.gql('query($id: ID!) { message(id: $id) { decisions { kind position } } }', { id: esttIds[0] });
    expect(msg.data.message.decisions).toEqual([{ kind: 'Applied', position: expect.any(String) }, { kind: 'Correction', position }]);

    // Kafka: the correction's change on `msg` (key = flid, position header) and the corrected flight on `schd`.
    const _records = await broker.waitFor('msg', 1, { timeoutMs: 120_000 });
    const waitForRecord = async () => {
      for (let i = 0; i < 3000; i++) {
        const r = broker.records('msg').find((x) => x.headers['log-position'] === position);
        if (r) return r;
        await broker.waitFor('msg', broker.records('msg').length + 1, { timeoutMs: 100 }).catch(() => undefined);
      }
      throw new Error(`no Kafka msg record for position ${position} among ${JSON.stringify(broker.records("msg").slice(-3).map((r) => r.headers))}`);
    };
    const rec = await waitForRecord();
    expect(rec.key).toBe('880001');
    expect(JSON.parse(rec.value!)).toMatchObject({ type: 'FlightUpdated', flid: '880001', change: { fields: { estimatedTime: '2025-03-14T09:18:00+08:00' } } });
    const schdHas = () => broker.records('schd').some((r) => (JSON.parse(r.value!) as { flid: string; estimatedTime: string }[])
      .some((f) => f.flid === '880001' && f.estimatedTime === '2025-03-14T09:18:00+08:00'));
    for (let i = 0; i < 3000 && !schdHas(); i++) await broker.waitFor('schd', broker.records('schd').length + 1, { timeoutMs: 100 }).catch(() => undefined);
    expect(schdHas()).toBe(true);

    // The operator replays it; the pump decides it at the end of the FIFO.
    expect(await replay(db.pool, systemClock, { errorClass: 'CODEC_ERROR', ids: [botmId] })).toHaveLength(1);
    await app.drained('the BOTM replayed');

    // 4. Idempotent: the same code finds nothing, before and after more live traffic.
    const again = await runRedecide(db.pool, { from: { position: '0' } }, { cfg });
    expect(again.report).toMatchObject({ differingMessages: [], differingFlights: [], replayableMessages: [] });
    expect((await applyCorrections(db.pool, again.redecision, { requestedBy: 'test', config: {}, now: new Date() })).positions.size).toBe(0);
    const estt = scenario.files.find((f) => f.name === '002-estt.xml')!.xml.replace('<SEQN>200001</SEQN>', '<SEQN>299001</SEQN>').replace('14MAR250918', '14MAR250925');
    await app.send([estt]);
    await app.drained('live traffic after the correction');
    expect((await app.gql(flightQuery, { flid: '880001' })).data.flight.estimatedTime).toBe('2025-03-14T09:25:00+08:00');
    const third = await runRedecide(db.pool, { from: { position: '0' } }, { cfg });
    expect(third.report).toMatchObject({ differingMessages: [], differingFlights: [], replayableMessages: [] });
    // --flight narrows the report; an instant --from folds what was decided before it.
    const narrowed = await runRedecide(db.pool, { from: { position: '0' } }, { cfg: { ...cfg, airportTz: 'UTC' }, flights: new Set(['880002']) });
    expect(narrowed.report.differingFlights.map((f) => f.flid)).toEqual(['880002']);
    const late = await runRedecide(db.pool, { from: { instant: new Date(Date.now() + HOUR) } }, { cfg });
    expect(late.report).toMatchObject({ decided: 0, from: late.report.to });
  }, 600_000);
});
