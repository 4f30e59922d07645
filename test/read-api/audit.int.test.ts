import { beforeAll, describe, expect, it } from 'vitest';
import { emptyFields } from '../../src/domain/fields.ts';
import { emptyLists } from '../../src/domain/lists.ts';
import type { Change } from '../../src/domain/changes.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { appendBatch } from '../support/decisions.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { flight, insertFlights, insertMessage } from './support/fixtures.ts';

const db = fileDatabase('rapiaudit');
let h: Harness;

const ESTT = (seqn: string, estt: string) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20250314060000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META><FLOP><FLID>700</FLID><ESTT>${estt}</ESTT></FLOP></MSG>`;
const created = (flid: string, sched: string): Change => ({
  type: 'FlightCreated', flid, operationDay: '2025-03-14',
  fields: { ...emptyFields(), airline: 'CA', flightNo: `CA${flid}`, direction: 'A', scheduledTime: sched }, lists: emptyLists(),
});

beforeAll(async () => {
  h = createHarness(db.pool);
  // 1: plan creates 700 and 701; 2: ESTT on 700; 3: FAILED then SUCCEEDED gate change; 4: duplicate of 2 (columns empty)
  await insertMessage(db.pool, { id: '1', xml: '<MSG/>', state: 'SUCCEEDED', identityKey: 'AODB|SCHD|DNLD|1', meta: { sndr: 'AODB', type: 'SCHD', styp: 'DNLD', seqn: '1' } });
  await insertMessage(db.pool, { id: '2', xml: ESTT('2', '14MAR250812'), state: 'SUCCEEDED', identityKey: 'AODB|FLOP|ESTT|2', meta: { sndr: 'AODB', type: 'FLOP', styp: 'ESTT', seqn: '2' } });
  await insertMessage(db.pool, { id: '3', xml: '<MSG/>', state: 'SUCCEEDED', attempts: 2, identityKey: 'AODB|FLOP|GTDT|3' });
  await insertMessage(db.pool, { id: '4', xml: ESTT('2', '14MAR250840'), state: 'SKIPPED', lastError: 'duplicate-of:2' });
  await insertMessage(db.pool, { id: '5', xml: '<MSG/>', state: 'SUCCEEDED' });
  await appendBatch(db.pool, [
    { position: '1', msgId: '1', handler: 'schd-snapshot', flids: ['700', '701'], recordedAt: '2025-03-14T01:00:00Z',
      payload: { changes: [created('700', '2025-03-14T01:30:00.000Z'), created('701', '2025-03-14T02:30:00.000Z'),
        { type: 'PlanSnapshotApplied', stype: 'DNLD', day: '2025-03-14', windowStart: null, windowEnd: null, created: 2, updated: 0, deleted: 0, ignored: 0 }] } },
    { position: '2', msgId: '2', handler: 'flop-fields', flids: ['700'], recordedAt: '2025-03-14T02:00:00Z',
      payload: { changes: [{ type: 'FlightUpdated', flid: '700', fields: { estimatedTime: '2025-03-14T00:12:00.000Z' } }] } },
    { position: '3', msgId: '3', kind: 'Failed', recordedAt: '2025-03-14T02:10:00Z', payload: { errorClass: 'INFRA', error: 'connection reset', attempt: 1, nextAttemptAt: '2025-03-14T02:10:01.000Z' } },
    { position: '4', msgId: '3', handler: 'flop-list', flids: ['700'], recordedAt: '2025-03-14T02:20:00Z',
      payload: { changes: [{ type: 'GatesReplaced', flid: '700', items: [{ seq: 1, code: 'G20', class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }] }] } },
    { position: '5', msgId: '4', kind: 'Skipped', recordedAt: '2025-03-14T02:30:00Z', payload: { reason: 'duplicate-of:2' } },
    { position: '6', msgId: null, kind: 'FlightsArchived', flids: ['701'], recordedAt: '2025-03-14T03:00:00Z',
      payload: { changes: [{ type: 'FlightsArchived', flids: ['701'], beforeDay: '2025-03-15' }], keepDays: 5 } },
    // Positions across a digit boundary (9 → 10): log order is numeric, not text order.
    ...['7', '8', '9', '10'].map((position, i) => ({
      position, msgId: '5', handler: 'flop-fields', flids: ['702'], recordedAt: `2025-03-14T04:0${i}:00Z`,
      payload: { changes: [{ type: 'FlightUpdated' as const, flid: '702', fields: { publicRemark: position } }] },
    })),
  ]);
  await insertFlights(db.pool, [flight('700', { stateVersion: 3, lastPosition: '4', lastMsgId: '3', estimatedTime: '2025-03-14T00:12:00.000Z' })]);
  await db.pool.query(
    `INSERT INTO msg_event (target, source_position, seq, msg_id, flid, payload, state, attempts, delivery_ref, created_at, sent_at)
     VALUES ('KAFKA_MSG', 2, 0, 2, '700', '{}', 'SENT', 1, '{"partition":0,"offset":"41"}', '2025-03-14T02:00:01Z', '2025-03-14T02:00:02Z'),
            ('COUTMSGS', 2, 0, 2, '700', '{}', 'PENDING', 0, NULL, '2025-03-14T02:00:01Z', NULL),
            ('KAFKA_MSG', 4, 0, 3, '700', '{}', 'SENT', 1, '{"partition":0,"offset":"42"}', '2025-03-14T02:20:01Z', '2025-03-14T02:20:03Z')`,
  );
});

describe('message(id)', () => {
  it('shows raw XML, META, state and every decision in log order with its changes and deliveries', async () => {
    const r = await h.gql(`{ message(id: "3") { id state attempts identityKey
      decisions { position kind msgId handler flids recordedAt payload changes { type flid data } }
      deliveries { target state attempts ref sentAt sourcePosition } } }`);
    expect(r.errors).toBeUndefined();
    const m = r.data!.message;
    expect(m).toMatchObject({ id: '3', state: 'SUCCEEDED', attempts: 2, identityKey: 'AODB|FLOP|GTDT|3' });
    expect(m.decisions.map((d: any) => [d.position, d.kind])).toEqual([['3', 'Failed'], ['4', 'Applied']]);
    expect(JSON.parse(m.decisions[0].payload)).toEqual({ errorClass: 'INFRA', error: 'connection reset', attempt: 1, nextAttemptAt: '2025-03-14T02:10:01.000Z' });
    expect(m.decisions[0].changes).toEqual([]);
    expect(m.decisions[1].changes).toEqual([{ type: 'GatesReplaced', flid: '700', data: expect.any(String) }]);
    expect(JSON.parse(m.decisions[1].changes[0].data).items[0].code).toBe('G20');
    expect(m.decisions[1].recordedAt).toBe('2025-03-14T10:20:00+08:00');
    expect(m.deliveries).toEqual([
      { target: 'KAFKA_MSG', state: 'SENT', attempts: 1, ref: '{"offset":"42","partition":0}', sentAt: '2025-03-14T10:20:03+08:00', sourcePosition: '4' },
    ]);
  });

  it('reads META from the head of the raw XML when the columns are empty, and shows the identity a duplicate has', async () => {
    const r = await h.gql(`{ message(id: "4") { sender type subtype seqn state lastError identityKey rawXml decisions { kind } deliveries { target } } }`);
    expect(r.data!.message).toEqual({
      sender: 'AODB', type: 'FLOP', subtype: 'ESTT', seqn: '2', state: 'SKIPPED', lastError: 'duplicate-of:2',
      identityKey: 'AODB|FLOP|ESTT|2', rawXml: ESTT('2', '14MAR250840'), decisions: [{ kind: 'Skipped' }], deliveries: [],
    });
  });

  it('lists the deliveries of all decisions of the message', async () => {
    const r = await h.gql(`{ message(id: "2") { deliveries { target state ref } } }`);
    expect(r.data!.message.deliveries).toEqual([
      { target: 'KAFKA_MSG', state: 'SENT', ref: '{"offset":"41","partition":0}' },
      { target: 'COUTMSGS', state: 'PENDING', ref: null },
    ]);
  });

  it('is null for an unknown id and refuses a non-integer id', async () => {
    expect((await h.gql(`{ message(id: "99") { id } }`)).data!.message).toBeNull();
    expect((await h.gql(`{ message(id: "x") { id } }`)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('flightHistory', () => {
  it('lists the decisions touching a flight, narrowed to its changes, with cursor paging', async () => {
    const q = `query($after: String) { flightHistory(flid: "700", first: 2, after: $after) { edges { cursor node { position changes { type flid } } } pageInfo { hasNextPage endCursor } } }`;
    const p1: any = await h.gql(q);
    expect(p1.data.flightHistory.edges.map((e: any) => e.node)).toEqual([
      { position: '1', changes: [{ type: 'FlightCreated', flid: '700' }, { type: 'PlanSnapshotApplied', flid: null }] },
      { position: '2', changes: [{ type: 'FlightUpdated', flid: '700' }] },
    ]);
    expect(p1.data.flightHistory.pageInfo.hasNextPage).toBe(true);
    const p2: any = await h.gql(q, { after: p1.data.flightHistory.pageInfo.endCursor });
    expect(p2.data.flightHistory.edges.map((e: any) => e.node.position)).toEqual(['4']);
    expect(p2.data.flightHistory.pageInfo).toEqual({ hasNextPage: false, endCursor: p2.data.flightHistory.edges[0].cursor });
  });
});

describe('log order across a digit boundary of positions', () => {
  it('lists a message\'s decisions 7, 8, 9, 10 in that order', async () => {
    const r: any = await h.gql(`{ message(id: "5") { decisions { position } } }`);
    expect(r.data.message.decisions.map((d: any) => d.position)).toEqual(['7', '8', '9', '10']);
  });

  it('pages a flight\'s history 7, 8 | 9, 10 without skipping or repeating', async () => {
    const q = `query($after: String) { flightHistory(flid: "702", first: 2, after: $after) { edges { node { position } } pageInfo { endCursor } } }`;
    const p1: any = await h.gql(q);
    const p2: any = await h.gql(q, { after: p1.data.flightHistory.pageInfo.endCursor });
    expect([p1, p2].map((p) => p.data.flightHistory.edges.map((e: any) => e.node.position))).toEqual([['7', '8'], ['9', '10']]);
  });
});

describe('flight(asOf)', () => {
  const asOf = (flid: string, t: string) => h.gql(`query($t: DateTime) { flight(flid: "${flid}", asOf: $t) { flid estimatedTime stateVersion lastPosition lastMsgId gates { code } } }`, { t });

  it('folds the log up to the instant', async () => {
    expect((await asOf('700', '2025-03-14T08:59:59+08:00')).data!.flight).toBeNull();
    expect((await asOf('700', '2025-03-14T09:30:00+08:00')).data!.flight).toEqual({
      flid: '700', estimatedTime: null, stateVersion: 1, lastPosition: '1', lastMsgId: '1', gates: [],
    });
    expect((await asOf('700', '2025-03-14T10:00:00+08:00')).data!.flight).toMatchObject({ estimatedTime: '2025-03-14T08:12:00+08:00', stateVersion: 2, lastPosition: '2' });
    expect((await asOf('700', '2025-03-14T12:00:00+08:00')).data!.flight).toMatchObject({ stateVersion: 3, lastPosition: '4', lastMsgId: '3', gates: [{ code: 'G20' }] });
  });

  it('keeps milliseconds in recordedAt, and asOf at a decision\'s own recordedAt includes that decision', async () => {
    await insertMessage(db.pool, { id: '6', xml: '<MSG/>', state: 'SUCCEEDED' });
    await appendBatch(db.pool, [
      { position: '11', msgId: '6', handler: 'schd-snapshot', flids: ['703'], recordedAt: '2025-03-14T05:00:00.123Z',
        payload: { changes: [created('703', '2025-03-14T06:30:00.000Z')] } },
    ]);
    const m: any = await h.gql('{ message(id: "6") { decisions { recordedAt } } }');
    const recordedAt = m.data.message.decisions[0].recordedAt;
    expect(recordedAt).toBe('2025-03-14T13:00:00.123+08:00');
    expect((await asOf('703', recordedAt)).data!.flight).toMatchObject({ flid: '703', lastPosition: '11' });
    expect((await asOf('703', '2025-03-14T13:00:00.122+08:00')).data!.flight).toBeNull();
  });

  it('shows an archived flight until its archiving', async () => {
    expect((await asOf('701', '2025-03-14T10:59:00+08:00')).data!.flight).toMatchObject({ flid: '701' });
    expect((await asOf('701', '2025-03-14T11:00:00+08:00')).data!.flight).toBeNull();
  });
});
