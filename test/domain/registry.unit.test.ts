import { describe, expect, it } from 'vitest';
import { FLOP_SUBTYPES, SCHD_SUBTYPES } from '../../src/domain/catalogue.ts';
import { HANDLERS, handlerFor } from '../../src/domain/handlers/registry.ts';
import { REFERENCE_KIND_NAMES, REFERENCE_SUBTYPES } from '../../src/domain/reference/kinds.ts';

describe('handler registry', () => {
  it('has exactly the 54 flight handlers of the catalogue, 23 × 5 reference handlers, SCHS DNLD/RESP and AIDX FLEG', () => {
    const flights = [...SCHD_SUBTYPES.map((s) => `SCHD/${s}`), ...FLOP_SUBTYPES.map((s) => `FLOP/${s}`)];
    const reference = REFERENCE_KIND_NAMES.flatMap((k) => REFERENCE_SUBTYPES.map((s) => `${k}/${s}`));
    expect(Object.keys(HANDLERS).sort()).toEqual([...flights, ...reference, 'SCHS/DNLD', 'SCHS/RESP', 'AIDX/FLEG'].sort());
    expect(flights).toHaveLength(54);
    expect(reference).toHaveLength(115);
    expect(handlerFor('AIRL', 'UPD')?.name).toBe('reference.AIRL.UPD');
    expect(handlerFor('SCHS', 'DNLD')?.name).toBe('reference.SCHS.DNLD');
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
    expect(handlerFor('WXYZ', 'ADD')).toBeUndefined();
    expect(handlerFor('FDEL', 'FDEL')).toBeUndefined(); // TYPE=FDEL is normalized by the codec first
    expect(handlerFor('SCHD', 'toString')).toBeUndefined();
  });
});
