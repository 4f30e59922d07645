import { expect, it } from 'vitest';
import type { Head } from '../../src/write/pump/findHeads.ts';
import { BlockedHeadWarning, warnOperatorWork } from '../../src/write/pump/pumpWarnings.ts';
import { captureLog } from '../reliability/support/captureLog.ts';

const lines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

it('one warn line per message that ends DEAD or PARKED, none for the others', () => {
  const { log, text } = captureLog('info');
  warnOperatorWork(
    log,
    [
      { head: { msgId: '10' }, outcome: { kind: 'Applied' } },
      { head: { msgId: '11' }, outcome: { kind: 'Dead', errorClass: 'EXHAUSTED', causeClass: 'CODEC_ERROR', error: 'CODEC_ERROR (5 attempts): bad ESTT' } },
      { head: { msgId: '12' }, outcome: { kind: 'Failed', errorClass: 'INFRA', error: 'x' } },
      { head: { msgId: '13' }, outcome: { kind: 'Parked', reason: 'waiting for reference data AIRL' } },
      { head: { msgId: '14' }, outcome: { kind: 'Dead', errorClass: 'MALFORMED', causeClass: null, error: 'not XML' } },
    ],
    ['100', '101', '102', '103', '104'],
  );
  const warns = lines(text()).filter((l) => l.level === 40);
  expect(warns.map((w) => [w.msgId, w.state, w.position])).toEqual([['11', 'DEAD', '101'], ['13', 'PARKED', '103'], ['14', 'DEAD', '104']]);
  expect(warns[0]!.msg).toBe('message 11 is DEAD (EXHAUSTED/CODEC_ERROR); see msgx status, then msgx replay');
  expect(warns[0]!.error).toBe('CODEC_ERROR (5 attempts): bad ESTT');
  expect(warns[1]!.error).toBe('waiting for reference data AIRL');
});

it('one warn line per head FAILED beyond the threshold, not one per scan', () => {
  const { log, text } = captureLog('info');
  const w = new BlockedHeadWarning(log, 60_000, 'Asia/Shanghai');
  const first = new Date('2025-03-15T00:00:00Z');
  const head = (msgId: string, state: Head['state'] = 'FAILED'): Head => ({
    msgId, state, attempts: 3, nextAttemptAt: new Date('2025-03-15T00:02:30.500Z'), firstFailureAt: state === 'FAILED' ? first : null, identityKey: null, rawXml: '', ingestedAt: new Date('2025-03-15T00:00:00.000Z'), nulReplaced: false,
  });
  const at = (s: number) => new Date(first.getTime() + s * 1000);
  w.check(head('7'), at(59)); // not yet
  w.check(head('7'), at(61));
  w.check(head('7'), at(90)); // same head: said already
  w.check(head('8', 'PENDING'), at(500)); // a pending head is not blocked
  w.check(undefined, at(500));
  w.check(head('9'), at(120));
  const warns = lines(text()).filter((l) => l.level === 40);
  expect(warns.map((l) => [l.msgId, l.blockedSeconds])).toEqual([['7', 61], ['9', 120]]);
  expect(warns[0]!.msg).toBe('head 7 has blocked the pipeline for 61 s (3 attempts); nothing behind it moves');
  // A business time of a log line carries the airport offset (interface.md).
  expect(warns[0]!.nextAttemptAt).toBe('2025-03-15T08:02:30.500+08:00');
});
