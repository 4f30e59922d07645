import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createBatchLoader } from '../../src/read-api/graphql/batchLoader.ts';
import { decodeCursor, encodeCursor } from '../../src/read-api/graphql/cursor.ts';
import { depthLimitRule } from '../../src/read-api/graphql/depthLimit.ts';
import { createFanOut } from '../../src/read-api/live/fanOut.ts';
import { touchedFlights } from '../../src/read-api/live/touchedFlights.ts';

describe('batch loader', () => {
  it('answers all loads of one tick with one batch call, caches per key and fills missing keys', async () => {
    const calls: string[][] = [];
    const loader = createBatchLoader(async (keys: readonly string[]) => {
      calls.push([...keys]);
      return new Map(keys.filter((k) => k !== 'x').map((k) => [k, k.toUpperCase()]));
    }, null as string | null);
    const got = await Promise.all(['a', 'b', 'a', 'x'].map((k) => loader.load(k)));
    expect(got).toEqual(['A', 'B', 'A', null]);
    expect(calls).toEqual([['a', 'b', 'x']]);
    expect(await loader.load('b')).toBe('B');
    expect(calls).toHaveLength(1);
  });

  it('rejects every load of a failed batch and does not cache the failure', async () => {
    let fail = true;
    const loader = createBatchLoader(async (keys: readonly string[]) => {
      if (fail) throw new Error('db down');
      return new Map(keys.map((k) => [k, 1]));
    }, 0);
    await expect(Promise.all([loader.load('a'), loader.load('b')])).rejects.toThrow('db down');
    fail = false;
    expect(await loader.load('a')).toBe(1);
  });
});

describe('cursor', () => {
  it('round-trips and refuses a cursor of another connection or garbage', () => {
    const c = encodeCursor('flights', ['2025-03-14', null, '7']);
    expect(decodeCursor('flights', c, 3)).toEqual(['2025-03-14', null, '7']);
    for (const bad of [encodeCursor('history', ['7']), 'garbage', Buffer.from('{"a":1}').toString('base64url')]) {
      expect(() => decodeCursor('flights', bad, 3)).toThrow(expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }));
    }
  });
});

describe('depth limit', () => {
  const schema = buildSchema('type Query { a: A } type A { b: A, c: Int }');
  const check = (q: string, max: number) => validate(schema, parse(q), [depthLimitRule(max)]).map((e) => e.message);
  it('counts nesting through fragments and ignores introspection', () => {
    expect(check('{ a { b { c } } }', 3)).toEqual([]);
    expect(check('{ a { b { b { c } } } }', 3)).toEqual(['query is nested 4 levels deep; the limit is 3']);
    expect(check('{ a { ...F } } fragment F on A { b { b { c } } }', 3)).toHaveLength(1);
    expect(check('{ __schema { types { fields { type { ofType { ofType { name } } } } } } }', 3)).toEqual([]);
  });
});

describe('touched flights', () => {
  it('lists each flight once with the type of its first change, archived flights included', () => {
    expect(touchedFlights({
      position: '9',
      changes: [
        { type: 'FlightCreated', flid: '1' }, { type: 'StandsReplaced', flid: '1' }, { type: 'FlightUpdated', flid: '2' },
        { type: 'PlanSnapshotApplied' }, { type: 'FlightsArchived', flids: ['3', '2'] },
      ] as never,
    })).toEqual([
      { flid: '1', position: '9', type: 'FlightCreated' },
      { flid: '2', position: '9', type: 'FlightUpdated' },
      { flid: '3', position: '9', type: 'FlightsArchived' },
    ]);
    expect(touchedFlights({ position: '3', changes: null })).toEqual([]);
  });
});

describe('fan-out', () => {
  it('delivers what was published after subscribing (before the first next), filtered, and ends on return', async () => {
    const f = createFanOut<number>();
    const even = f.subscribe((n) => n % 2 === 0);
    f.publish(1);
    f.publish(2);
    f.publish(4);
    expect(await even.next()).toEqual({ value: 2, done: false });
    expect(await even.next()).toEqual({ value: 4, done: false });
    const pending = even.next();
    f.publish(6);
    expect(await pending).toEqual({ value: 6, done: false });
    await even.return!();
    expect(f.size()).toBe(0);
    expect(await even.next()).toEqual({ value: undefined, done: true });
  });

  it('ends a subscriber that falls too far behind', async () => {
    const f = createFanOut<number>(2);
    const slow = f.subscribe(() => true);
    for (let i = 0; i < 5; i++) f.publish(i);
    expect(f.size()).toBe(0);
    expect(await slow.next()).toEqual({ value: 0, done: false });
  });
});
