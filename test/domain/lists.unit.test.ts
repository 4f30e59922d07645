/** Value equality of lists (what "the record carries the same list" means) and list copies. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyLists, listsOf, sameValue } from '../../src/domain/lists.ts';

// The first definition, kept as the oracle: key union, a missing key equals null.
function referenceSame(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => referenceSame(x, b[i]));
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) if (!referenceSame(ra[k] ?? null, rb[k] ?? null)) return false;
  return true;
}

describe('sameValue', () => {
  it('ignores key order and treats a missing key as null', () => {
    expect(sameValue([{ seq: 1, code: 'A', kind: null }], [{ code: 'A', seq: 1 }])).toBe(true);
    expect(sameValue([{ seq: 1, code: 'A' }], [{ seq: 1, code: 'A', kind: 'D' }])).toBe(false);
    expect(sameValue([{ seq: 1, code: 'A', kind: 'D' }], [{ seq: 1, code: 'A' }])).toBe(false);
  });

  it('tells apart lengths, order, arrays from objects, and nested values', () => {
    expect(sameValue([{ seq: 1 }], [{ seq: 1 }, { seq: 2 }])).toBe(false);
    expect(sameValue([{ seq: 1 }, { seq: 2 }], [{ seq: 2 }, { seq: 1 }])).toBe(false);
    expect(sameValue([], {})).toBe(false);
    expect(sameValue({ a: { b: [1, null] } }, { a: { b: [1] } })).toBe(false);
    expect(sameValue({ a: { b: [1, { c: null }] } }, { a: { b: [1, {}] } })).toBe(true);
  });

  it('agrees with the first definition on arbitrary JSON-like values', () => {
    const leaf = fc.oneof(fc.constant(null), fc.constant(undefined), fc.integer({ min: 0, max: 2 }), fc.constantFrom('a', 'b'));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('seq', 'code', 'kind', 'start'), tie('v'), { maxKeys: 3 })),
    })).v;
    fc.assert(fc.property(value, value, (a, b) => {
      expect(sameValue(a, b)).toBe(referenceSame(a, b));
      expect(sameValue(a, structuredClone(a))).toBe(true);
    }), { numRuns: 3000 });
  });
});

describe('list copies', () => {
  it('listsOf fills absent lists with empty ones and keeps the given arrays', () => {
    const gates = [{ seq: 1, code: 'G', class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }];
    const lists = listsOf({ gates });
    expect(lists.gates).toBe(gates);
    expect(Object.keys(lists)).toHaveLength(14);
    expect(lists.stands).toEqual([]);
  });

  it('copyLists copies every item (no array or item is shared) and tolerates a missing list', () => {
    const route = [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: null }];
    const copy = copyLists({ route } as never);
    expect(copy.route).toEqual(route);
    expect(copy.route).not.toBe(route);
    expect(copy.route[0]).not.toBe(route[0]);
    expect(copy.delays).toEqual([]);
  });
});
