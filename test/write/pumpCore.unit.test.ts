import { describe, expect, it } from 'vitest';
import type { FlightState } from '../../src/domain/flight.ts';
import type { Change } from '../../src/domain/changes.ts';
import { latestDayAfter, sweepCutoff } from '../../src/domain/archive.ts';
import { FlightOverlay } from '../../src/write/pump/flightOverlay.ts';
import { failureVerdict } from '../../src/write/pump/outcome.ts';
import { asParameter } from '../../src/platform/sqlBatch.ts';

const cfg = { maxAttempts: 4, headDeadlineMs: 10_000, backoffMs: [1000, 2000, 4000], backoffCapMs: 3000 };
const t0 = new Date('2025-03-14T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

describe('failureVerdict', () => {
  it('MALFORMED is dead at once, with no cause', () => {
    expect(failureVerdict(cfg, t0, { attempts: 0, firstFailureAt: null }, 'MALFORMED', 'not xml')).toEqual({
      kind: 'Dead', errorClass: 'MALFORMED', causeClass: null, error: 'not xml', attempt: 1,
    });
  });

  it('CODEC_ERROR and UNSUPPORTED park at once: no retry, no backoff, whatever the attempts', () => {
    expect(failureVerdict(cfg, t0, { attempts: 0, firstFailureAt: null }, 'UNSUPPORTED', 'no handler for FLOP/ZZZZ')).toEqual({
      kind: 'Parked', errorClass: 'UNSUPPORTED', error: 'no handler for FLOP/ZZZZ', attempt: 1,
    });
    expect(failureVerdict(cfg, at(9000), { attempts: 7, firstFailureAt: t0 }, 'CODEC_ERROR', 'bad ESTT')).toEqual({
      kind: 'Parked', errorClass: 'CODEC_ERROR', error: 'bad ESTT', attempt: 8,
    });
  });

  it('INFRA backs off by the table, capped', () => {
    expect(failureVerdict(cfg, t0, { attempts: 0, firstFailureAt: null }, 'INFRA', 'x')).toMatchObject({ kind: 'Failed', attempt: 1, nextAttemptAt: at(1000) });
    expect(failureVerdict(cfg, at(1000), { attempts: 1, firstFailureAt: t0 }, 'INFRA', 'x')).toMatchObject({ kind: 'Failed', attempt: 2, nextAttemptAt: at(3000) });
    // step 3 is 4000 but the cap is 3000
    expect(failureVerdict(cfg, at(3000), { attempts: 2, firstFailureAt: t0 }, 'INFRA', 'x')).toMatchObject({ kind: 'Failed', attempt: 3, nextAttemptAt: at(6000) });
  });

  it('MSGX_MAX_ATTEMPTS ends INFRA DEAD(EXHAUSTED) with the cause and the original error', () => {
    const v = failureVerdict(cfg, at(6000), { attempts: 3, firstFailureAt: t0 }, 'INFRA', 'connection reset');
    expect(v).toMatchObject({ kind: 'Dead', errorClass: 'EXHAUSTED', causeClass: 'INFRA', attempt: 4 });
    expect(v.error).toBe('INFRA (4 attempts): connection reset');
  });

  it('the head deadline ends it before max attempts, and the next try is never after the deadline', () => {
    const big = { ...cfg, maxAttempts: 100, backoffCapMs: 60_000, backoffMs: [8000] };
    expect(failureVerdict(big, at(5000), { attempts: 1, firstFailureAt: t0 }, 'INFRA', 'x')).toMatchObject({ kind: 'Failed', nextAttemptAt: at(10_000) });
    const v = failureVerdict(big, at(10_000), { attempts: 2, firstFailureAt: t0 }, 'INFRA', 'timeout');
    expect(v).toMatchObject({ kind: 'Dead', errorClass: 'EXHAUSTED', causeClass: 'INFRA', attempt: 3 });
    expect(v.error).toContain('head deadline 10000 ms');
  });
});

describe('FlightOverlay', () => {
  const f = (flid: string) => ({ flid, operationDay: '2025-03-14' }) as FlightState;
  it('reads through to the base, keeps writes and deletes to itself', () => {
    const base = new Map([['1', f('1')], ['2', f('2')]]);
    const o = new FlightOverlay(base);
    o.set('3', f('3'));
    o.set('1', { ...f('1'), operationDay: '2025-03-15' });
    o.delete('2');
    expect([...o.keys()].sort()).toEqual(['1', '3']);
    expect(o.get('1')!.operationDay).toBe('2025-03-15');
    expect(o.has('2')).toBe(false);
    expect(o.size).toBe(2);
    expect([...base.keys()]).toEqual(['1', '2']);
    expect(base.get('1')!.operationDay).toBe('2025-03-14');
  });
});

describe('history sweep on traffic time', () => {
  it('counts keep days back from the latest operation day, across month and year ends', () => {
    expect(sweepCutoff('2025-03-14', 30)).toBe('2025-02-12');
    expect(sweepCutoff('2025-03-01', 1)).toBe('2025-02-28');
    expect(sweepCutoff('2026-01-01', 1)).toBe('2025-12-31');
  });

  it('the latest operation day moves only forward, and only with a created flight', () => {
    const created = (flid: string, operationDay: string) => ({ type: 'FlightCreated', flid, operationDay }) as unknown as Change;
    expect(latestDayAfter(null, [])).toBeNull();
    expect(latestDayAfter(null, [created('1', '2025-03-14'), created('2', '2025-03-13')])).toBe('2025-03-14');
    expect(latestDayAfter('2025-03-15', [created('1', '2025-03-14')])).toBe('2025-03-15');
    expect(latestDayAfter('2025-03-15', [{ type: 'FlightUpdated', flid: '1', fields: {} }])).toBe('2025-03-15');
  });
});

describe('asParameter (commit parameters built ahead of the transaction)', () => {
  it('turns arrays into PostgreSQL array literals: quoted, escaped, NULL, instants as ISO text', () => {
    expect(asParameter(['a', 'say "hi"', 'back\\slash', null, '', 'NULL', '{x,y}'])).toBe('{"a","say \\"hi\\"","back\\\\slash",NULL,"","NULL","{x,y}"}');
    expect(asParameter([1, 0, null])).toBe('{1,0,NULL}');
    expect(asParameter([true, false])).toBe('{true,false}');
    expect(asParameter([new Date('2025-03-14T01:02:03.004Z'), null])).toBe('{"2025-03-14T01:02:03.004Z",NULL}');
    expect(asParameter([])).toBe('{}');
  });

  it('leaves anything but an array to node-postgres', () => {
    const d = new Date();
    expect(asParameter('x')).toBe('x');
    expect(asParameter(null)).toBe(null);
    expect(asParameter(d)).toBe(d);
    expect(asParameter('[1,2]')).toBe('[1,2]');
  });
});
