import { describe, expect, it } from 'vitest';
import { FLOP_SUBTYPES, SCHD_SUBTYPES } from '../../src/domain/catalogue.ts';
import { HANDLERS, handlerFor } from '../../src/domain/handlers/registry.ts';

describe('handler registry', () => {
  it('has exactly the 54 handlers of the catalogue', () => {
    const expected = [...SCHD_SUBTYPES.map((s) => `SCHD/${s}`), ...FLOP_SUBTYPES.map((s) => `FLOP/${s}`)].sort();
    expect(Object.keys(HANDLERS).sort()).toEqual(expected);
    expect(expected).toHaveLength(54);
  });

  it('names and versions every handler', () => {
    expect(handlerFor('FLOP', 'ESTT')).toEqual({ type: 'FLOP', styp: 'ESTT', name: 'flopFields.ESTT', version: 2 });
    expect(handlerFor('FLOP', 'EOBT')?.name).toBe('flopFields.EOBT');
    expect(handlerFor('FLOP', 'VIPF')?.name).toBe('flopLists.VIPF');
    expect(handlerFor('SCHD', 'DEL')?.name).toBe('schdDelete.DEL');
    expect(handlerFor('FLOP', 'GTDT')?.name).toBe('flopLists.GTDT');
    expect(handlerFor('FLOP', 'FDEL')?.name).toBe('fdel.FDEL');
    expect(handlerFor('SCHD', 'DNLD')?.name).toBe('schdSnapshot.DNLD');
    expect(handlerFor('SCHD', 'ADFT')?.name).toBe('schdUpsert.ADFT');
  });

  it('answers undefined (UNSUPPORTED) for anything else', () => {
    expect(handlerFor('FLOP', 'ZZZZ')).toBeUndefined();
    expect(handlerFor('AIRL', 'ADD')).toBeUndefined();
    expect(handlerFor('FDEL', 'FDEL')).toBeUndefined(); // TYPE=FDEL is normalized by the codec first
    expect(handlerFor('SCHD', 'toString')).toBeUndefined();
  });
});
