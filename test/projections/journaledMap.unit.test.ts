import { describe, expect, it } from 'vitest';
import { JournaledMap } from '../../src/projections/journaledMap.ts';

describe('JournaledMap', () => {
  it('restores set, replaced and deleted keys on rollback', () => {
    const m = new JournaledMap<string, number>([['a', 1], ['b', 2]]);
    m.begin();
    m.set('a', 10);
    m.set('a', 11);
    m.delete('b');
    m.set('c', 3);
    m.rollback();
    expect([...m].sort()).toEqual([['a', 1], ['b', 2]]);
  });

  it('keeps changes on commit, and forgets the journal', () => {
    const m = new JournaledMap<string, number>([['a', 1]]);
    m.begin();
    m.set('a', 2);
    m.commit();
    m.rollback(); // nothing to undo
    expect(m.get('a')).toBe(2);
  });

  it('undoes a clear', () => {
    const m = new JournaledMap<string, number>([['a', 1], ['b', 2]]);
    m.begin();
    m.clear();
    m.set('x', 9);
    m.rollback();
    expect([...m].sort()).toEqual([['a', 1], ['b', 2]]);
  });
});
