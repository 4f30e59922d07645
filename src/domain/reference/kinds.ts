/**
 * The 23 kinds of reference (master) data of the interface (reference.md): per TYPE the key
 * element, the English and local name elements, and which record children repeat (kept as lists
 * even when a record carries just one). VIPL holds personal data: only `kind`, `code` and
 * `VRNK` are shown unless personal data is exposed.
 */
export interface ReferenceKindInfo {
  readonly kind: string;
  readonly description: string;
  /** The element that identifies a record. */
  readonly key: string;
  /** Shown as `name` / `nameLocal`; null when the kind has none. */
  readonly name: string | null;
  readonly nameLocal: string | null;
  /** Record children that repeat: always lists. */
  readonly lists: readonly string[];
  /** Personal data (VIPL): the record's elements other than these are withheld. */
  readonly publicFields?: readonly string[];
}

const k = (
  kind: string, description: string, key: string, name: string | null, nameLocal: string | null,
  lists: readonly string[] = [], publicFields?: readonly string[],
): ReferenceKindInfo => Object.freeze({ kind, description, key, name, nameLocal, lists: Object.freeze([...lists]), ...(publicFields ? { publicFields } : {}) });

export const REFERENCE_KIND_LIST: readonly ReferenceKindInfo[] = Object.freeze([
  k('AIRL', 'airlines', 'ITOP', 'ONAM', 'ONMC', ['TRML', 'OGRP', 'SUBC']),
  k('ARPT', 'airports', 'ITCD', 'ANAM', 'ANMC', ['ABBR']),
  k('CITY', 'cities', 'ITCD', 'CNAM', 'CNMC', ['ABBR']),
  k('COUL', 'countries', 'COUC', 'COUN', 'CNMC', ['REGC']),
  k('REGL', 'regions', 'REGC', 'REGN', 'RGNC'),
  k('AIRC', 'aircraft types', 'ITAT', 'DESC', 'CDSC'),
  k('REGN', 'registrations', 'RNUM', null, null),
  k('TLST', 'terminals', 'TCOD', 'TNAM', 'TNMC'),
  k('PLST', 'piers', 'PCOD', 'PRNM', 'PNMC'),
  k('SLST', 'stands', 'SCOD', 'STNM', 'SNMC'),
  k('GLST', 'gates', 'GCOD', 'GTNM', 'GNMC'),
  k('CLST', 'check-in counters', 'CCOD', 'CTNM', 'CNMC'),
  k('BLST', 'baggage belts', 'BCOD', 'BTNM', 'BNMC'),
  k('CHLT', 'make-up chutes', 'CCOD', 'CHNM', 'CNMC'),
  k('ABDG', 'boarding bridges', 'ABCD', 'DESC', 'CDSC', ['STND', 'GATE']),
  k('DLYL', 'delay codes', 'DCOD', 'DDES', 'DDSC'),
  k('STTS', 'status codes', 'STTC', 'STTD', 'STDC'),
  k('ABNR', 'abnormal reasons', 'ANRC', 'ANRD', 'ARDC'),
  k('FLTL', 'flight (service) types', 'FTYP', 'FDES', 'FDSC'),
  k('HLTR', 'ground service types', 'HLTC', 'HLTD', 'HTDC'),
  k('ORGN', 'organisations', 'OGID', 'ONAM', 'ONMC', ['OCAT']),
  k('VIPL', 'VIP persons', 'VPCD', null, null, [], ['VPCD', 'VRNK']),
  k('VIPS', 'VIP services', 'VSCD', 'VSDS', 'VSDC'),
]);

export const REFERENCE_KINDS: Readonly<Record<string, ReferenceKindInfo>> = Object.freeze(
  Object.fromEntries(REFERENCE_KIND_LIST.map((i) => [i.kind, i])),
);

export const REFERENCE_KIND_NAMES: readonly string[] = Object.freeze(REFERENCE_KIND_LIST.map((i) => i.kind));

/** Kinds as an operator gives them (any case, repeated, blanks) → upper-cased, once each, in order; null when empty or one is unknown. */
export function referenceKindsOf(given: readonly string[]): string[] | null {
  const kinds = [...new Set(given.map((k) => k.trim().toUpperCase()).filter((k) => k !== ''))];
  return kinds.length > 0 && kinds.every((k) => REFERENCE_KIND_NAMES.includes(k)) ? kinds : null;
}

/** Subtypes of a reference kind message. */
export const REFERENCE_SUBTYPES = ['DNLD', 'RESP', 'ADD', 'UPD', 'DEL'] as const;
export type ReferenceStyp = (typeof REFERENCE_SUBTYPES)[number];

/** Seasonal schedules: TYPE=SCHS, the whole season's schedule. */
export const SEASONAL_TYPE = 'SCHS';
export const SEASONAL_SUBTYPES = ['DNLD', 'RESP'] as const;
export type SeasonalStyp = (typeof SEASONAL_SUBTYPES)[number];

/** The kind whose records are personal data. */
export const PERSONAL_KIND = 'VIPL';

export function isReferenceKind(type: string): boolean {
  return Object.hasOwn(REFERENCE_KINDS, type);
}
export function isReferenceStyp(s: string): s is ReferenceStyp {
  return (REFERENCE_SUBTYPES as readonly string[]).includes(s);
}
export function isSeasonalStyp(s: string): s is SeasonalStyp {
  return (SEASONAL_SUBTYPES as readonly string[]).includes(s);
}
/** Messages whose decisions (and raw text) carry personal data. */
export function isPersonalType(type: string | null | undefined): boolean {
  return type === PERSONAL_KIND;
}
