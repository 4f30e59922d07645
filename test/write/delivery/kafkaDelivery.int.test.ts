import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../src/platform/clock.ts';
import { noFaults } from '../../../src/platform/faults.ts';
import { createPgMailbox } from '../../../src/platform/mailbox/pgMailbox.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { createDeliveryServices } from '../../../src/write/delivery/deliveryServices.ts';
import type { Dispatcher } from '../../../src/write/delivery/dispatcher.ts';
import { startKafkaBroker, type KafkaTestBroker, type StoredRecord } from '../../support/kafka/broker.ts';
import { fileDatabase } from '../../support/fileDatabase.ts';
import { waitFor } from '../../support/waitFor.ts';
import { brokerSink, emptyOutbox, type OutboxWriter, rowStates, startDispatcher, testConfig } from './outboxFixture.ts';

const TZ = 'Asia/Shanghai';
const db = fileDatabase('delivery_kafka');
let broker: KafkaTestBroker;
let clock: FakeClock;
let out: OutboxWriter;
let dispatcher: Dispatcher | undefined;

beforeEach(async () => {
  broker = await startKafkaBroker({ topics: { msg: 3, schd: 1 } });
  ({ clock, out } = await emptyOutbox(db.pool, '2025-03-14T00:00:00Z'));
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
  await broker.close();
  expect(broker.internalErrors).toEqual([]);
});

async function start(env: Record<string, string> = {}, msgBatchMax?: number): Promise<void> {
  dispatcher = await startDispatcher({
    pool: db.pool,
    url: db.url,
    mailbox: createPgMailbox(db.pool, TZ),
    sink: brokerSink(broker),
    clock,
    cfg: testConfig({ MSGX_KAFKA_BROKERS: broker.brokers[0]!, ...env }),
    ...(msgBatchMax !== undefined ? { msgBatchMax } : {}),
  });
}

const eventIdsOf = (records: readonly StoredRecord[]) => records.map((r) => r.headers['event-id']);
const byEventId = (records: readonly StoredRecord[]) =>
  [...records].sort((a, b) => Number(BigInt(a.headers['event-id']!) - BigInt(b.headers['event-id']!)));

/** Move the fake clock on (a backoff step at a time) until `probe` holds. */
async function advanceUntil<T>(probe: () => Promise<T> | T, what: string, stepMs = 1000) {
  return waitFor(async () => {
    const v = await probe();
    if (!v) clock.advance(stepMs);
    return v;
  }, { what, intervalMs: 50 });
}

/** Wait until the head row has failed `n` times (and is waiting for its backoff). */
async function headAttempts(target: 'KAFKA_MSG' | 'KAFKA_SCHD' | 'COUTMSGS', n: number) {
  return waitFor(async () => (await rowStates(db.pool, target)).find((r) => r.attempts >= n && r.state === 'PENDING'), {
    what: `${target} head with ${n} attempts`,
  });
}

describe('KAFKA_MSG delivery', () => {
  it('sends one record per row, keyed by FLID, with msg-id/event-id/log-position headers, in order per key', async () => {
    await start({}, 4);
    const flids = ['101', '202', '303'];
    const rows = Array.from({ length: 12 }, (_, i) => out.msg(flids[i % 3]!, String(9000 + i), { type: 'FlightUpdated', n: i }));
    const ids = await out.insert(rows);

    const records = await broker.waitFor('msg', 12);
    expect(records).toHaveLength(12);
    for (const flid of flids) {
      const mine = records.filter((r) => r.key === flid).sort((a, b) => a.partition - b.partition || Number(a.offset - b.offset));
      // one partition per key, and offsets follow the event order
      expect(new Set(mine.map((r) => r.partition)).size).toBe(1);
      const expected = ids.filter((_, i) => flids[i % 3] === flid);
      expect(eventIdsOf(mine)).toEqual(expected);
    }
    const first = records.find((r) => r.headers['event-id'] === ids[0])!;
    expect(first.headers).toEqual({ 'msg-id': '9000', 'event-id': ids[0], 'log-position': '1' });
    expect(JSON.parse(first.value!)).toMatchObject({ type: 'FlightUpdated', flid: '101', msgId: '9000', change: { n: 0 } });

    const states = await waitFor(async () => {
      const s = await rowStates(db.pool, 'KAFKA_MSG');
      return s.every((r) => r.state === 'SENT') ? s : null;
    });
    // every row's delivery_ref points at the record the broker stored for it
    for (const s of states) {
      const rec = records.find((r) => r.headers['event-id'] === s.eventId)!;
      expect(s.deliveryRef).toEqual({ topic: 'msg', partition: rec.partition, offset: String(rec.offset) });
    }
  });

  it('a broker outage blocks only the Kafka targets: COUTMSGS keeps flowing, and nothing is lost or reordered', async () => {
    await start();
    broker.faults.refuseConnections(true);
    const before = await out.insert([
      out.msg('101', '1', { type: 'FlightUpdated', n: 1 }),
      out.msg('101', '2', { type: 'FlightUpdated', n: 2 }),
      { target: 'KAFKA_SCHD', flid: '101', payload: { flid: '101', v: 1 } },
      { target: 'COUTMSGS', payload: { clobMsg: '<MSG>during outage</MSG>' } },
    ]);

    // COUTMSGS is delivered while Kafka is down
    await waitFor(async () => (await rowStates(db.pool, 'COUTMSGS'))[0]?.state === 'SENT', { what: 'COUTMSGS sent' });
    const { rows: mail } = await db.pool.query('SELECT coutmsgs_clob_msg AS xml, routingid FROM mailbox.coutmsgs');
    expect(mail).toEqual([{ xml: '<MSG>during outage</MSG>', routingid: 'ROUTE-T' }]);

    // The Kafka heads keep failing well past MSGX_MAX_ATTEMPTS (3) but stay PENDING: an outage never kills them.
    clock.advance(3000); // schd flush falls due
    for (let n = 1; n <= 5; n++) {
      await headAttempts('KAFKA_MSG', n);
      await headAttempts('KAFKA_SCHD', n);
      clock.advance(4000); // the backoff cap
    }
    const during = await out.insert([out.msg('202', '3', { type: 'FlightUpdated', n: 3 }), out.msg('101', '4', { type: 'FlightUpdated', n: 4 })]);
    const msgStates = await rowStates(db.pool, 'KAFKA_MSG');
    expect(msgStates.map((r) => r.state)).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING']);
    expect(msgStates[0]!.lastError).toMatch(/Kafka send to 'msg' failed/);
    expect(broker.records('msg')).toEqual([]);

    broker.faults.refuseConnections(false);
    clock.advance(4000);
    const records = await broker.waitFor('msg', 4);
    await broker.waitFor('schd', 1);
    await waitFor(async () => (await rowStates(db.pool, 'KAFKA_MSG')).every((r) => r.state === 'SENT'), { what: 'all sent' });
    expect(eventIdsOf(byEventId(broker.records('msg')))).toEqual([before[0], before[1], ...during]);
    expect(records.filter((r) => r.key === '101').map((r) => r.headers['msg-id'])).toEqual(['1', '2', '4']);
    expect(JSON.parse(broker.records('schd')[0]!.value!)).toEqual([{ flid: '101', v: 1 }]);
  });

  it('a broker stop and restart mid-stream loses nothing and duplicates nothing', async () => {
    await start({}, 3);
    const first = await out.insert([1, 2, 3].map((n) => out.msg('7', String(n), { type: 'FlightUpdated', n })));
    await broker.waitFor('msg', 3);
    await broker.faults.stop();
    const second = await out.insert([4, 5, 6, 7].map((n) => out.msg(String(n % 2), String(n), { type: 'FlightUpdated', n })));
    await headAttempts('KAFKA_MSG', 1);
    clock.advance(1000);
    await headAttempts('KAFKA_MSG', 2);
    await broker.faults.restart();
    await advanceUntil(async () => (await rowStates(db.pool, 'KAFKA_MSG')).every((r) => r.state === 'SENT'), 'all sent');
    expect(eventIdsOf(byEventId(broker.records('msg')))).toEqual([...first, ...second]);
  });

  it('a response lost after the broker stored the batch: the same rows are sent again and the broker keeps one copy', async () => {
    await start();
    // kafkajs tries twice (FAST_RETRY), both answers are lost: the dispatcher records a transient failure
    broker.faults.failNextProduce(2, 'NOT_LEADER_FOR_PARTITION', { afterAppend: true });
    const ids = await out.insert([1, 2, 3].map((n) => out.msg('5', String(n), { type: 'FlightUpdated', n })));
    await headAttempts('KAFKA_MSG', 1);
    expect(broker.records('msg')).toHaveLength(3); // stored, though the dispatcher does not know it
    await advanceUntil(async () => (await rowStates(db.pool, 'KAFKA_MSG')).every((r) => r.state === 'SENT'), 'all sent');
    expect(eventIdsOf(broker.records('msg'))).toEqual(ids);
  });

  it('a record the broker keeps refusing goes DEAD after MSGX_MAX_ATTEMPTS with its error, and the target moves on', async () => {
    await start();
    broker.faults.failNextProduce(3, 'INVALID_RECORD');
    const [bad, good] = await out.insert([out.msg('1', '11', { type: 'FlightUpdated' }), out.msg('2', '12', { type: 'FlightUpdated' })]);
    await headAttempts('KAFKA_MSG', 1);
    clock.advance(1000);
    await headAttempts('KAFKA_MSG', 2);
    clock.advance(2000);
    const states = await waitFor(async () => {
      const s = await rowStates(db.pool, 'KAFKA_MSG');
      return s[1]?.state === 'SENT' ? s : null;
    }, { what: 'second row sent' });
    expect(states[0]).toMatchObject({ eventId: bad, state: 'DEAD', attempts: 3 });
    expect(states[0]!.lastError).toMatch(/record/i);
    expect(states[1]).toMatchObject({ eventId: good, state: 'SENT', attempts: 0 });
    expect(eventIdsOf(broker.records('msg'))).toEqual([good]);
  });
});

describe('readiness', () => {
  it("the writer's 'kafka' check passes while the broker answers metadata and fails while it is down", async () => {
    const cfg = testConfig({ MSGX_DATABASE_URL: db.url, MSGX_KAFKA_BROKERS: broker.brokers[0]! });
    const rt = { cfg, log: silentLogger, clock, pool: db.pool, readPool: db.pool, mailbox: createPgMailbox(db.pool, TZ), databaseUrl: db.url, faults: noFaults, close: async () => undefined };
    const delivery = createDeliveryServices(rt);
    expect(delivery.services.map((s) => s.name)).toEqual(['dispatcher', 'request-tracker']);
    const [kafka] = delivery.readiness;
    expect(kafka!.name).toBe('kafka');
    await kafka!.check();
    await broker.faults.stop();
    await expect(kafka!.check()).rejects.toThrow();
    await broker.faults.restart();
    await waitFor(() => kafka!.check().then(() => true), { what: 'kafka ready again' });
    await delivery.services[0]!.stop(); // closes the sink
  });
});

describe('KAFKA_SCHD delivery', () => {
  it('each flush sends ONE record with only the newest row per FLID; the whole batch is SENT with one ref', async () => {
    await start();
    const ids = await out.insert([
      { target: 'KAFKA_SCHD', flid: 'A', payload: { flid: 'A', v: 1 } },
      { target: 'KAFKA_SCHD', flid: 'B', payload: { flid: 'B', v: 1 } },
      { target: 'KAFKA_SCHD', flid: 'A', payload: { flid: 'A', v: 2 } },
      { target: 'KAFKA_SCHD', flid: 'C', payload: { flid: 'C', v: 1 } },
      { target: 'KAFKA_SCHD', flid: 'A', payload: { flid: 'A', v: 3 } },
      { target: 'KAFKA_SCHD', flid: 'B', payload: { flid: 'B', v: 2 } },
    ]);
    clock.advance(3000);
    const [record] = await broker.waitFor('schd', 1);
    expect(JSON.parse(record!.value!)).toEqual([
      { flid: 'C', v: 1 },
      { flid: 'A', v: 3 },
      { flid: 'B', v: 2 },
    ]);
    expect(record!.headers).toMatchObject({ 'event-id-first': ids[0], 'event-id-last': ids[5], 'log-position': '6', flights: '3' });
    const states = await waitFor(async () => {
      const s = await rowStates(db.pool, 'KAFKA_SCHD');
      return s.every((r) => r.state === 'SENT') ? s : null;
    });
    for (const s of states) expect(s.deliveryRef).toEqual({ topic: 'schd', partition: 0, offset: '0' });
    expect(broker.records('schd')).toHaveLength(1);
  });

  it('on a topic of several partitions every batch goes to one partition, so every flight keeps its records in log order', async () => {
    await broker.close();
    broker = await startKafkaBroker({ topics: { msg: 3, schd: 4 } });
    await start({ MSGX_SCHD_FLUSH_LIMIT: '2' });
    for (let v = 1; v <= 6; v++) {
      await out.insert([
        { target: 'KAFKA_SCHD', flid: 'F1', payload: { flid: 'F1', v } },
        { target: 'KAFKA_SCHD', flid: 'F2', payload: { flid: 'F2', v } },
      ]);
      await broker.waitFor('schd', v);
    }
    const records = broker.records('schd');
    expect(new Set(records.map((r) => r.partition)).size).toBe(1);
    const versions = records.map((r) => (JSON.parse(r.value!) as { v: number }[]).map((x) => x.v));
    expect(versions).toEqual([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6]]);
  });

  it('flushes at once when MSGX_SCHD_FLUSH_LIMIT rows are pending, and not before', async () => {
    await start({ MSGX_SCHD_FLUSH_LIMIT: '4' });
    await out.insert([1, 2, 3].map((n) => ({ target: 'KAFKA_SCHD' as const, flid: `F${n}`, payload: { flid: `F${n}` } })));
    await out.insert([{ target: 'KAFKA_SCHD', flid: 'F4', payload: { flid: 'F4' } }, { target: 'KAFKA_SCHD', flid: 'F5', payload: { flid: 'F5' } }]);
    // no clock movement: the limit alone triggers; had 3 rows been flushed early there would be two records
    const [record] = await broker.waitFor('schd', 1);
    expect(JSON.parse(record!.value!).map((r: { flid: string }) => r.flid)).toEqual(['F1', 'F2', 'F3', 'F4']);
    const states = await waitFor(async () => {
      const s = await rowStates(db.pool, 'KAFKA_SCHD');
      return s.filter((r) => r.state === 'SENT').length === 4 ? s : null;
    }, { what: 'first batch sent' });
    expect(states.map((r) => r.state)).toEqual(['SENT', 'SENT', 'SENT', 'SENT', 'PENDING']);
    clock.advance(3000);
    const all = await broker.waitFor('schd', 2);
    expect(JSON.parse(all[1]!.value!)).toEqual([{ flid: 'F5' }]);
  });

  it('a failing batch backs off as a whole, newer rows wait for the next batch, exhaustion makes the whole batch DEAD', async () => {
    await start();
    broker.faults.failNextProduce(3, 'INVALID_RECORD');
    const batch = await out.insert([
      { target: 'KAFKA_SCHD', flid: 'A', payload: { flid: 'A', v: 1 } },
      { target: 'KAFKA_SCHD', flid: 'A', payload: { flid: 'A', v: 2 } },
    ]);
    clock.advance(3000);
    await headAttempts('KAFKA_SCHD', 1);
    const later = await out.insert([{ target: 'KAFKA_SCHD', flid: 'B', payload: { flid: 'B', v: 1 } }]);
    let states = await rowStates(db.pool, 'KAFKA_SCHD');
    expect(states.map((s) => [s.state, s.attempts])).toEqual([['PENDING', 1], ['PENDING', 1], ['PENDING', 0]]);
    clock.advance(1000);
    await headAttempts('KAFKA_SCHD', 2);
    clock.advance(2000);
    states = await waitFor(async () => {
      const s = await rowStates(db.pool, 'KAFKA_SCHD');
      return s[0]?.state === 'DEAD' ? s : null;
    }, { what: 'batch DEAD' });
    expect(states.slice(0, 2).map((s) => [s.eventId, s.state, s.attempts])).toEqual([[batch[0], 'DEAD', 3], [batch[1], 'DEAD', 3]]);
    clock.advance(3000);
    const [record] = await broker.waitFor('schd', 1);
    expect(JSON.parse(record!.value!)).toEqual([{ flid: 'B', v: 1 }]);
    expect(record!.headers['event-id-first']).toBe(later[0]);
  });
});
