/**
 * FLOP field subtypes (ACFT RENO TAOP TRML FLTY FLIN ESTT ACTT PADT BOTM LACL FINT CNCL FTSS
 * EXSS FDIV FRET STND): set or clear the fields the subtype carries. The element → field
 * mapping is the codec's (`codec/fieldElements.ts`); here only what actually changes is emitted.
 * CNCL empty = reinstate (cancelTime null; `cancelled` is derived from it).
 */
import type { FlightChange } from '../changes.ts';
import type { FlightState } from '../flight.ts';
import type { FieldPatch } from '../message.ts';
import { fieldChanges } from './diff.ts';

// 2: the whole interface (TAOP/TAFL/TAID and EXSC/EXSR set as a unit, TOBT absent = clear, 18 more subtypes).
export const FLOP_FIELDS_VERSION = 2;

export function decideFlopFields(state: FlightState, fields: FieldPatch): FlightChange[] {
  return fieldChanges(state, fields);
}
