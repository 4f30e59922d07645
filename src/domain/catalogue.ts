/**
 * The message catalogue (messages.md): which TYPE/STYP pairs exist and which group of handler
 * decides each. The codec and the handler registry both read these tables, so a subtype is
 * either fully supported (decodable and decidable) or UNSUPPORTED — never half.
 */
import type { ListName } from './flight.ts';

export const SCHD_SUBTYPES = ['DNLD', 'RESP', 'ADFT', 'DEL'] as const;
export type SchdStyp = (typeof SCHD_SUBTYPES)[number];

/**
 * FLOP subtypes that set scalar fields: the body elements each one reads. Elements are
 * described in `codec/fieldElements.ts`.
 */
export const FLOP_FIELD_SUBTYPES = {
  ACFT: ['ACFT'],
  RENO: ['RENO'],
  TAOP: ['TAOP', 'TAFL', 'TAID'],
  TRML: ['TRML'],
  FLTY: ['FLTY'],
  FLIN: ['FLIN'],
  ESTT: ['ESTT'],
  ACTT: ['ACTT'],
  PADT: ['PADT'],
  BOTM: ['BOTM'],
  LACL: ['LACL'],
  FINT: ['FINT'],
  CNCL: ['CNCL'],
  FTSS: ['FTSS'],
  EXSS: ['EXSC', 'EXSR'],
  FDIV: ['FDIV'],
  FRET: ['FRET'],
  STND: ['STND'],
  // The whole interface (interface.md): 18 field subtypes …
  EOBT: ['EOBT'],
  TOBT: ['TOBT'],
  COBT: ['COBT'],
  CTOT: ['CTOT'],
  IEST: ['IEST'],
  APPT: ['APPT'],
  EGSR: ['EGSR'],
  EGST: ['EGST'],
  PEDT: ['PEDT'],
  NEAT: ['NEAT'],
  NAAT: ['NAAT'],
  FLAB: ['FLAB'],
  HNAG: ['PHAG', 'FHAG', 'MHAG'],
  MAXP: ['MAXP'],
  REMC: ['REMC'],
  RUNW: ['RUNW'],
  VIPP: ['VIPP', 'VIPR'],
  PORT: ['PORT'],
} as const satisfies Record<string, readonly string[]>;
export type FlopFieldStyp = keyof typeof FLOP_FIELD_SUBTYPES;

/** FLOP subtypes that replace a whole list of the flight (the element name is the STYP). */
export const FLOP_LIST_SUBTYPES = {
  PSDT: 'stands',
  GTDT: 'gates',
  CKDT: 'counters',
  CLDT: 'belts',
  CHDT: 'chutes',
  ABTM: 'bridges',
  CHOT: 'chocks',
  DELY: 'delays',
  SRVT: 'services',
  ERUT: 'route',
  // … and 3 list subtypes.
  VIPF: 'vipGuests',
  PSHT: 'pushbacks',
  TIPT: 'tows',
} as const satisfies Record<string, ListName>;
export type FlopListStyp = keyof typeof FLOP_LIST_SUBTYPES;

export type FlopStyp = FlopFieldStyp | FlopListStyp | 'FDEL';

/**
 * Elements set as a unit (interface.md): in a message that carries any element of a unit, an
 * element of it that is absent clears that part. (FDIV's attributes are a unit too, in
 * fieldElements.ts.)
 */
export const FIELD_UNITS: readonly (readonly string[])[] = [['TAOP', 'TAFL', 'TAID'], ['EXSC', 'EXSR']];

/** FLOP field subtypes whose element may be absent: absent = clear (interface.md: TOBT). */
export const ABSENT_CLEARS: ReadonlySet<string> = new Set(['TOBT']);

/** Every list element a full FLTR record may carry: the FLOP list subtypes plus ROUT. */
export const RECORD_LIST_ELEMENTS = { ...FLOP_LIST_SUBTYPES, ROUT: 'adjacent' } as const satisfies Record<string, ListName>;
export type ListElement = keyof typeof RECORD_LIST_ELEMENTS;

export const FLOP_SUBTYPES: readonly FlopStyp[] = [
  ...(Object.keys(FLOP_FIELD_SUBTYPES) as FlopFieldStyp[]),
  ...(Object.keys(FLOP_LIST_SUBTYPES) as FlopListStyp[]),
  'FDEL',
];

export function isSchdStyp(s: string): s is SchdStyp {
  return (SCHD_SUBTYPES as readonly string[]).includes(s);
}
export function isFlopFieldStyp(s: string): s is FlopFieldStyp {
  return Object.hasOwn(FLOP_FIELD_SUBTYPES, s);
}
export function isFlopListStyp(s: string): s is FlopListStyp {
  return Object.hasOwn(FLOP_LIST_SUBTYPES, s);
}
export function isFlopStyp(s: string): s is FlopStyp {
  return isFlopFieldStyp(s) || isFlopListStyp(s) || s === 'FDEL';
}

