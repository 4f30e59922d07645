/**
 * LazyMap (src/platform/lazyMap.ts) behaves as a Map under any sequence of operations, whatever
 * its chunks hold, and decodes a chunk only when a value of it is read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LazyMap, type LazyChunk } from '../../src/platform/lazyMap.ts';

function chunk(entries: readonly (readonly [string, number])[]): LazyChunk<string, number> & { loads: number } {
  const c = {
    keys: entries.map(([k]) => k),
    loads: 0,
    load() {
      c.loads += 1;
      return entries;
    },
  };
  return c;
}

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const op = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ op: fc.constant('delete' as const), key }),
  fc.record({ op: fc.constant('get' as const), key }),
  fc.record({ op: fc.constant('has' as const), key }),
  fc.record({ op: fc.constant('clear' as const) }),
  fc.record({ op: fc.constant('copy' as const), except: fc.subarray(['a', 'b', 'c']) }),
);

describe('LazyMap', () => {
  it('answers as a Map would, for any chunks and operations', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.tuple(key, fc.integer()), { selector: ([k]) => k, maxLength: 4 }), { maxLength: 3 }),
        fc.array(op, { maxLength: 30 }),
        (chunks, ops) => {
          const lazy = new LazyMap<string, number>();
          const plain = new Map<string, number>();
          // Later chunks do not take keys an earlier one gave (addChunk keeps what the map holds).
          for (const entries of chunks) {
            const fresh = entries.filter(([k]) => !plain.has(k));
            lazy.addChunk(chunk(fresh));
            for (const [k, v] of fresh) plain.set(k, v);
          }
          for (const o of ops) {
            switch (o.op) {
              case 'set':
                lazy.set(o.key, o.value);
                plain.set(o.key, o.value);
                break;
              case 'delete':
                expect(lazy.delete(o.key)).toBe(plain.delete(o.key));
                break;
              case 'get':
                expect(lazy.get(o.key)).toBe(plain.get(o.key));
                break;
              case 'has':
                expect(lazy.has(o.key)).toBe(plain.has(o.key));
                break;
              case 'clear':
                lazy.clear();
                plain.clear();
                break;
              case 'copy': {
                const copy = new LazyMap<string, number>();
                copy.copyFrom(lazy, new Set(o.except));
                expect(new Map(copy)).toEqual(new Map([...plain].filter(([k]) => !o.except.includes(k))));
                break;
              }
            }
            expect(lazy.size).toBe(plain.size);
            expect([...lazy.keys()].sort()).toEqual([...plain.keys()].sort());
          }
          expect(new Map(lazy)).toEqual(plain);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decodes a chunk once, on the first read of one of its values, and shares it with its copies', () => {
    const one = chunk([['a', 1], ['b', 2]]);
    const two = chunk([['c', 3]]);
    const m = new LazyMap<string, number>();
    m.addChunk(one);
    m.addChunk(two);
    m.set('b', 20);
    m.delete('c');
    expect([m.size, m.has('a'), [...m.keys()].sort(), one.loads, two.loads]).toEqual([2, true, ['a', 'b'], 0, 0]);
    const copy = new LazyMap<string, number>();
    copy.copyFrom(m);
    expect(copy.pendingCount).toBe(1);
    expect(m.get('a')).toBe(1);
    expect(m.get('b')).toBe(20); // set before its chunk was decoded: the decoded value does not overwrite it
    expect(copy.get('a')).toBe(1);
    expect([one.loads, two.loads]).toEqual([2, 0]); // the test chunk does not memoise: each map decodes it once
    expect([...m.values()]).toEqual([20, 1]);
    expect(two.loads).toBe(0); // deleted before use: never decoded
  });
});
