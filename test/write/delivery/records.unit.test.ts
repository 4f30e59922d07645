import { describe, expect, it } from 'vitest';
import { classifyMailboxError } from '../../../src/write/delivery/coutmsgsWorker.ts';
import { failureOutcome } from '../../../src/write/delivery/failureOutcome.ts';
import { isTransientKafkaError, needsNewProducer } from '../../../src/write/delivery/kafkaErrors.ts';
import { msgRecord } from '../../../src/write/delivery/msgRecord.ts';
import type { OutboxRow } from '../../../src/write/delivery/outboxRows.ts';
import { newestPerFlid, schdRecord } from '../../../src/write/delivery/schdRecord.ts';

const row = (eventId: string, flid: string | null, payload: unknown, extra: Partial<OutboxRow> = {}): OutboxRow => ({
  eventId,
  target: 'KAFKA_SCHD',
  sourcePosition: String(Number(eventId) * 10),
  msgId: null,
  flid,
  payloadJson: JSON.stringify(payload),
  headers: {},
  attempts: 0,
  nextAttemptAt: null,
  batchId: null,
  ...extra,
});

describe('msg records', () => {
  it('key = FLID, value = payload JSON, headers msg-id / event-id / log-position as strings', () => {
    const r = msgRecord(
      row('42', '3001', { type: 'FlightUpdated', flid: '3001', msgId: '77' }, { target: 'KAFKA_MSG', msgId: '77', headers: { msgId: '77', position: '420' } }),
    );
    expect(r).toEqual({
      key: '3001',
      value: JSON.stringify({ type: 'FlightUpdated', flid: '3001', msgId: '77' }),
      headers: { 'msg-id': '77', 'event-id': '42', 'log-position': '420' },
      eventIds: ['42'],
    });
  });

  it('the value is the stored payload text as it is, not re-serialised (msg_event.payload is json)', () => {
    const stored = '{"type":"FlightUpdated","flid":"3001","change":{"b":1,"a":2}}';
    const r = msgRecord({ ...row('43', '3001', null, { target: 'KAFKA_MSG', msgId: '77', headers: { msgId: '77', position: '430' } }), payloadJson: stored });
    expect(r.value).toBe(stored);
  });

  it('a row whose headers lack the msg-id takes the payload\'s; a row without a FLID column takes the payload\'s as key', () => {
    const r = msgRecord(row('44', null, { type: 'FlightUpdated', flid: '3002', msgId: '78' }, { target: 'KAFKA_MSG' }));
    expect(r.key).toBe('3002');
    expect(r.headers['msg-id']).toBe('78');
  });

  it('a change not caused by a message has no msg-id header; a change without a flight has no key', () => {
    const r = msgRecord(row('5', null, { type: 'PlanSnapshotApplied', flid: null, msgId: null }, { target: 'KAFKA_MSG' }));
    expect(r.key).toBeNull();
    expect(r.headers).toEqual({ 'event-id': '5', 'log-position': '50' });
  });
});

describe('schd batches', () => {
  const batch = [
    row('9', 'A', { flid: 'A', v: 1 }),
    row('10', 'B', { flid: 'B', v: 1 }),
    row('11', 'A', { flid: 'A', v: 2 }),
    row('12', 'C', { flid: 'C', v: 1 }),
    row('100', 'A', { flid: 'A', v: 3 }),
  ];

  it('keeps only the newest row per FLID (by event id as a number, not text), in event order', () => {
    expect(newestPerFlid(batch).map((r) => r.eventId)).toEqual(['10', '12', '100']);
  });

  it('one record: JSON array of the kept flight records; eventIds list the whole batch', () => {
    const r = schdRecord(batch);
    expect(JSON.parse(r.value)).toEqual([{ flid: 'B', v: 1 }, { flid: 'C', v: 1 }, { flid: 'A', v: 3 }]);
    expect(r.key).toBe('schd');
    expect(r.eventIds).toEqual(['9', '10', '11', '12', '100']);
    expect(r.value).toBe('[{"flid":"B","v":1},{"flid":"C","v":1},{"flid":"A","v":3}]');
    expect(r.headers).toEqual({ 'event-id-first': '9', 'event-id-last': '100', 'log-position': '1000', flights: '3' });
  });
});

describe('failure outcomes', () => {
  const cfg = { maxAttempts: 3, backoffMs: [1000, 2000, 4000], backoffCapMs: 3000 };
  const now = new Date('2025-03-14T00:00:00Z');

  it('permanent failures back off, then go DEAD when attempts reach MSGX_MAX_ATTEMPTS', () => {
    expect(failureOutcome(cfg, 0, false, now)).toEqual({ attempts: 1, state: 'PENDING', nextAttemptAt: new Date(now.getTime() + 1000) });
    expect(failureOutcome(cfg, 1, false, now)).toEqual({ attempts: 2, state: 'PENDING', nextAttemptAt: new Date(now.getTime() + 2000) });
    expect(failureOutcome(cfg, 2, false, now)).toEqual({ attempts: 3, state: 'DEAD', nextAttemptAt: null });
  });

  it('transient failures never go DEAD; the backoff stays at its cap, and at most OUTAGE_RETRY_MAX_MS (2 s)', () => {
    expect(failureOutcome(cfg, 1, true, now)).toEqual({ attempts: 2, state: 'PENDING', nextAttemptAt: new Date(now.getTime() + 2000) });
    expect(failureOutcome(cfg, 9, true, now)).toEqual({ attempts: 10, state: 'PENDING', nextAttemptAt: new Date(now.getTime() + 2000) });
    expect(failureOutcome({ ...cfg, backoffCapMs: 500 }, 9, true, now).nextAttemptAt).toEqual(new Date(now.getTime() + 500));
  });
});

describe('error classification', () => {
  const kafkaError = (name: string, props: Record<string, unknown> = {}, cause?: unknown) =>
    Object.assign(new Error(name), { name, ...props, ...(cause ? { cause } : {}) });

  it('Kafka: unreachable cluster and retriable protocol errors are transient, also when kafkajs wrapped them', () => {
    const conn = kafkaError('KafkaJSConnectionError', { retriable: true });
    expect(isTransientKafkaError(conn)).toBe(true);
    expect(isTransientKafkaError(kafkaError('KafkaJSNonRetriableError', { retriable: false }, conn))).toBe(true);
    expect(isTransientKafkaError(kafkaError('KafkaJSNumberOfRetriesExceeded', { retriable: false }, conn))).toBe(true);
    expect(isTransientKafkaError(kafkaError('KafkaJSProtocolError', { retriable: true, type: 'NOT_LEADER_FOR_PARTITION' }))).toBe(true);
  });

  it('Kafka: records the broker refuses are permanent; producer-state errors are transient and need a new producer', () => {
    const invalid = kafkaError('KafkaJSProtocolError', { retriable: false, type: 'INVALID_RECORD' });
    expect(isTransientKafkaError(invalid)).toBe(false);
    expect(isTransientKafkaError(kafkaError('KafkaJSNonRetriableError', { retriable: false }, invalid))).toBe(false);
    const seq = kafkaError('KafkaJSProtocolError', { retriable: false, type: 'OUT_OF_ORDER_SEQUENCE_NUMBER' });
    expect(isTransientKafkaError(seq)).toBe(true);
    expect(needsNewProducer(kafkaError('KafkaJSNumberOfRetriesExceeded', {}, seq))).toBe(true);
    expect(needsNewProducer(invalid)).toBe(false);
  });

  it('mailbox: SQLSTATE class 22/23 (MySQL sqlState or PostgreSQL code) is permanent, anything else transient', () => {
    expect(classifyMailboxError(Object.assign(new Error('Data too long'), { code: 'ER_DATA_TOO_LONG', sqlState: '22001' })).transient).toBe(false);
    expect(classifyMailboxError(Object.assign(new Error('null value'), { code: '23502' })).transient).toBe(false);
    expect(classifyMailboxError(Object.assign(new Error('gone'), { code: 'PROTOCOL_CONNECTION_LOST' })).transient).toBe(true);
    expect(classifyMailboxError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })).transient).toBe(true);
  });
});
