import { expect, it } from 'vitest';
import { compare, selectionOf } from './support/scenarioRunner.ts';

it('selects the listed fields, nested objects and the union of list element fields', () => {
  expect(selectionOf({ a: 1, linkedFlight: { flid: '1' }, stands: [{ seq: 1 }, { code: 'x' }], gates: [] })).toBe(
    'a linkedFlight { flid } stands { seq code } gates',
  );
});

it('compares instants as instants, lists by length and position, null as null', () => {
  expect(compare('f', { t: '2025-03-14T09:30:00+08:00' }, { t: '2025-03-14T01:30:00Z' })).toEqual([]);
  expect(compare('f', { t: '2025-03-14T09:30:00+08:00' }, { t: '2025-03-14T09:30:00Z' })).toHaveLength(1);
  expect(compare('f', { l: [{ seq: 1 }] }, { l: [{ seq: 1, code: 'a' }] })).toEqual([]);
  expect(compare('f', { l: [{ seq: 1 }] }, { l: [{ seq: 1 }, { seq: 2 }] })).toEqual(['f.l: expected 1 items, got 2: [{"seq":1},{"seq":2}]']);
  expect(compare('f', { l: [{ seq: 1 }, { seq: 2 }] }, { l: [{ seq: 2 }, { seq: 1 }] })).toHaveLength(2);
  expect(compare('f', { x: null }, { x: null })).toEqual([]);
  expect(compare('f', { x: null }, { x: 'A' })).toHaveLength(1);
  expect(compare('f', { x: 'A' }, { x: null })).toHaveLength(1);
  expect(compare('f', { cancelled: false }, { cancelled: false })).toEqual([]);
});
