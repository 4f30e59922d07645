/** The decision payload union and its boundary (src/domain/decisionPayload.ts). */
import { describe, expect, it } from 'vitest';
import {
  changesOf, decisionBody, decisionKindAt, DecisionLogError, DECISION_KINDS, isDecisionKind,
  type DecisionKind, type DecisionPayloads,
} from '../../src/domain/decisionPayload.ts';
import type { Change } from '../../src/domain/changes.ts';
import { toDecisionRecord } from '../../src/log/readDecisions.ts';
import { emptyFields } from '../../src/domain/fields.ts';
import { emptyLists } from '../../src/domain/lists.ts';

const created: Change = { type: 'FlightCreated', flid: 'F1', operationDay: '2026-12-02', fields: emptyFields(), lists: emptyLists() };

/** One payload of every kind, as its writer writes it (the mapped type makes a missing kind a compile error). */
const SAMPLES: { readonly [K in DecisionKind]: DecisionPayloads[K] } = {
  Applied: { changes: [created], unknownFlids: ['F9'], blocks: [{ flid: 'F1', outcome: 'applied' }], warnings: ['w'] },
  Skipped: { reason: 'duplicate-of:17' },
  Failed: { errorClass: 'INFRA', error: 'connection reset', attempt: 2, nextAttemptAt: '2026-12-02T06:00:00.000Z' },
  Dead: { errorClass: 'EXHAUSTED', error: 'INFRA (5 attempts): x', attempt: 5, causeClass: 'INFRA' },
  Parked: { errorClass: 'CODEC_ERROR', error: 'bad element', attempt: 1 },
  ReplayRequested: {
    fromState: 'PARKED', errorClass: 'CODEC_ERROR', attempts: 1, lastError: null,
    filter: { class: 'CODEC_ERROR', ids: ['5'], since: '2026-12-01T00:00:00.000Z' }, requestedBy: 'op@host',
  },
  FlightsArchived: { changes: [{ type: 'FlightsArchived', flids: ['F1'], beforeDay: '2026-11-01' }], keepDays: 30, latestDay: '2026-12-01' },
  GapExpired: { source: 'CMINMSGS', gapId: '41', openedAt: '2026-12-02T05:00:00.000Z', timeoutMs: 60000 },
  DeliveryReplayRequested: { target: 'KAFKA_MSG', eventIds: ['3', '4'], requestedBy: 'op@host' },
  Correction: {
    changes: [created], reportId: 'r1', from: '0', to: '99', handlerVersions: { 'flight.arr': 2 },
    supersedes: [{ msgId: '12', digest: 'abc' }], config: { airportTz: 'Europe/Vienna' }, requestedBy: 'op@host',
  },
  ShadowStarted: { topicPrefix: 'shadow.', requestedBy: 'op@host' },
  CutOver: { cutoverPosition: '120', watermark: '900', undecided: 0, shadowSince: null, topicPrefix: 'shadow.', requestedBy: 'op@host' },
  PlanRequestRecorded: {
    request: 'RQFD', from: '2026-12-02T00:00:00.000Z', to: '2026-12-03T00:00:00.000Z', dailyFor: '2026-12-02', sent: false,
    reason: 'shadow run', requestedBy: 'op@host',
  },
  PlanRequested: {
    request: 'RQFD', reqId: '7', changes: [{ type: 'PlanRequested', mgid: 'MSGX-RQ7-ABCDEF', windowStart: '2026-12-02T00:00:00.000Z', windowEnd: '2026-12-03T00:00:00.000Z' }],
  },
  RebuildRequested: { projection: 'reference', detail: '--page-size 100', requestedBy: 'op@host' },
  ReferenceRequested: { request: 'RQRD', kinds: ['AIRL'], requests: [{ kind: 'AIRL', reqId: '8', mgid: 'M', sent: true }], requestedBy: 'op@host' },
  HistoryArchived: { month: '2026-01', files: [{ table: 'decision_event', file: '/a/f.ndjson.gz', sha256: 'ab', rows: 1 }], requestedBy: 'op@host' },
  HistoryRestored: { month: '2026-01', files: [{ table: 'decision_event', file: '/a/f.ndjson.gz', sha256: 'ab', rows: 1 }], requestedBy: 'op@host' },
};

describe('decisionBody: the boundary between a decision_event row and the payload union', () => {
  it('knows exactly the 18 kinds', () => {
    expect(DECISION_KINDS).toHaveLength(18);
    expect([...DECISION_KINDS].sort()).toEqual(Object.keys(SAMPLES).sort());
    expect(isDecisionKind('Applied')).toBe(true);
    expect(isDecisionKind('toString')).toBe(false);
  });

  it.each(DECISION_KINDS)('round-trips a %s payload through JSON unchanged', (kind) => {
    const onDisk: unknown = JSON.parse(JSON.stringify(SAMPLES[kind]));
    const body = decisionBody('42', kind, onDisk);
    expect(body.kind).toBe(kind);
    expect(body.payload).toEqual(SAMPLES[kind]);
    expect(body.payload).toBe(onDisk); // not copied
  });

  it('narrows on kind', () => {
    const body = decisionBody('1', 'Correction', JSON.parse(JSON.stringify(SAMPLES.Correction)));
    if (body.kind !== 'Correction') throw new Error('expected a Correction');
    expect(body.payload.supersedes[0]!.digest).toBe('abc');
    expect(changesOf(body)).toHaveLength(1);
    expect(changesOf(decisionBody('2', 'Skipped', { reason: 'unknown-flight' }))).toEqual([]);
  });

  it('reads payloads of older logs: optional fields absent, unknown fields kept', () => {
    const older = { changes: [{ type: 'FlightsArchived', flids: ['F1'], beforeDay: '2026-11-01' }], keepDays: 30 };
    expect(decisionBody('3', 'FlightsArchived', older).payload).toEqual(older);
    expect(decisionBody('4', 'Skipped', { reason: 'x', extra: 1 }).payload).toEqual({ reason: 'x', extra: 1 });
  });

  it('rejects an unknown kind, naming the position', () => {
    expect(() => decisionBody('1234', 'Teleported', {})).toThrow(DecisionLogError);
    expect(() => decisionBody('1234', 'Teleported', {})).toThrow('decision_event position 1234: unknown decision kind "Teleported"');
    expect(() => decisionKindAt('77', 'hasOwnProperty')).toThrow('position 77');
  });

  it.each([
    ['Applied', null, 'position 9: Applied payload is null, not an object'],
    ['Applied', [1], 'position 9: Applied payload is array, not an object'],
    ['Applied', {}, 'position 9: malformed Applied payload: changes is missing'],
    ['Applied', { changes: {} }, 'changes is object, not array'],
    ['Applied', { changes: [], blocks: 'x' }, 'blocks is string, not array'],
    ['Skipped', { reason: 7 }, 'reason is number, not string'],
    ['Failed', { errorClass: 'INFRA', error: 'e', attempt: '1', nextAttemptAt: 'x' }, 'attempt is string, not number'],
    ['ReplayRequested', { ...SAMPLES.ReplayRequested, fromState: 'PENDING' }, 'fromState is "PENDING", not one of FAILED, DEAD, PARKED'],
    ['CutOver', { ...SAMPLES.CutOver, shadowSince: 5 }, 'shadowSince is number, not string'],
    ['Correction', { ...SAMPLES.Correction, supersedes: null }, 'supersedes is null, not array'],
  ] as const)('rejects a malformed %s payload %j', (kind, payload, message) => {
    let error: unknown;
    try {
      decisionBody('9', kind, payload);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DecisionLogError);
    expect((error as DecisionLogError).position).toBe('9');
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).toContain('decision_event position 9');
  });
});

describe('toDecisionRecord (src/log/readDecisions.ts): a whole decision_event row through the boundary', () => {
  const row = { position: '5', msgId: '11', handler: 'flop-fields', handlerVersion: 1, flids: ['F1'], recordedAt: new Date('2026-12-02T05:00:00Z') };

  it('keeps the columns and narrows on kind', () => {
    const d = toDecisionRecord({ ...row, kind: 'Skipped', payload: { reason: 'unknown-flight' } });
    expect(d).toEqual({ ...row, recordedAt: '2026-12-02T05:00:00.000Z', kind: 'Skipped', payload: { reason: 'unknown-flight' } });
    if (d.kind !== 'Skipped') throw new Error('expected Skipped');
    expect(d.payload.reason).toBe('unknown-flight');
  });

  it('names the row position for a malformed payload', () => {
    expect(() => toDecisionRecord({ ...row, kind: 'Dead', payload: { errorClass: 'MALFORMED' } }))
      .toThrow('decision_event position 5: malformed Dead payload: error is missing');
  });
});
