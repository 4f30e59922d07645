import { expect, it } from 'vitest';
import { mismatches } from '../support/matchExpected.ts';
import { selectionOf } from './support/scenarioRunner.ts';

it('selects the listed fields, nested objects and the union of list element fields', () => {
  expect(selectionOf({ a: 1, linkedFlight: { flid: '1' }, stands: [{ seq: 1 }, { code: 'x' }], gates: [] })).toBe(
    'a linkedFlight { flid } stands { seq code } gates',
  );
});

it('compares instants as instants, lists by length and position, null as null', () => {
  expect(mismatches({ t: '2025-03-14T09:30:00+08:00' }, { t: '2025-03-14T01:30:00Z' }, 'f')).toEqual([]);
  expect(mismatches({ t: '2025-03-14T09:30:00+08:00' }, { t: '2025-03-14T09:30:00Z' }, 'f')).toHaveLength(1);
  expect(mismatches({ l: [{ seq: 1 }] }, { l: [{ seq: 1, code: 'a' }] }, 'f')).toEqual([]);
  expect(mismatches({ l: [{ seq: 1 }] }, { l: [{ seq: 1 }, { seq: 2 }] }, 'f')).toEqual(['f.l: expected 1 items, got 2: [{"seq":1},{"seq":2}]']);
  expect(mismatches({ l: [{ seq: 1 }, { seq: 2 }] }, { l: [{ seq: 2 }, { seq: 1 }] }, 'f')).toHaveLength(2);
  expect(mismatches({ x: null }, { x: null }, 'f')).toEqual([]);
  expect(mismatches({ x: null }, { x: 'A' }, 'f')).toHaveLength(1);
  expect(mismatches({ x: 'A' }, { x: null }, 'f')).toHaveLength(1);
  expect(mismatches({ cancelled: false }, { cancelled: false }, 'f')).toEqual([]);
  expect(mismatches({ a: { b: 1 } }, { a: { b: 2 } })).toEqual(['a.b: expected 1, got 2']);
  expect(mismatches({ t: '2025-03-14T09:30:00+08:00' }, { t: 'soon' }, 'f')).toEqual(['f.t: expected instant 2025-03-14T09:30:00+08:00, got soon']);
});
