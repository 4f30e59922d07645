/**
 * The handler registry: one entry per TYPE/STYP of the catalogue (3 SCHD + 29 FLOP = 32, plus
 * 23 reference kinds × DNLD/RESP/ADD/UPD/DEL and SCHS DNLD/RESP), with
 * the name and version recorded on every decision. A pair that is not here is UNSUPPORTED.
 * Bump a group's version whenever its decisions change, so a rebuild can tell old from new.
 */
import {
  FLOP_FIELD_SUBTYPES, FLOP_LIST_SUBTYPES, SCHD_SUBTYPES, type FlopFieldStyp, type FlopListStyp,
} from '../catalogue.ts';
import { AIDX_VERSION } from './aidx.ts';
import { FDEL_VERSION } from './fdel.ts';
import { FLOP_FIELDS_VERSION } from './flopFields.ts';
import { FLOP_LISTS_VERSION } from './flopLists.ts';
import { SCHD_DELETE_VERSION, SCHD_SNAPSHOT_VERSION, SCHD_UPSERT_VERSION } from './schd.ts';
import { REFERENCE_KIND_NAMES, REFERENCE_SUBTYPES, SEASONAL_SUBTYPES, SEASONAL_TYPE } from '../reference/kinds.ts';

/** Version of the reference-data and seasonal-schedule handlers (src/domain/reference). */
export const REFERENCE_VERSION = 1;

export interface HandlerInfo {
  /** SCHD, FLOP, a reference kind (AIRL, …) or SCHS. */
  readonly type: string;
  readonly styp: string;
  /** e.g. `schdSnapshot.DNLD`, `flopFields.ESTT` */
  readonly name: string;
  readonly version: number;
}

export const handlerKey = (type: string, styp: string): string => `${type}/${styp}`;

function entry(type: string, styp: string, group: string, version: number): [string, HandlerInfo] {
  return [handlerKey(type, styp), Object.freeze({ type, styp, name: `${group}.${styp}`, version })];
}

export const HANDLERS: Readonly<Record<string, HandlerInfo>> = Object.freeze(Object.fromEntries([
  ...SCHD_SUBTYPES.map((s) =>
    s === 'ADFT' ? entry('SCHD', s, 'schdUpsert', SCHD_UPSERT_VERSION)
      : s === 'DEL' ? entry('SCHD', s, 'schdDelete', SCHD_DELETE_VERSION)
        : entry('SCHD', s, 'schdSnapshot', SCHD_SNAPSHOT_VERSION)),
  ...(Object.keys(FLOP_FIELD_SUBTYPES) as FlopFieldStyp[]).map((s) => entry('FLOP', s, 'flopFields', FLOP_FIELDS_VERSION)),
  ...(Object.keys(FLOP_LIST_SUBTYPES) as FlopListStyp[]).map((s) => entry('FLOP', s, 'flopLists', FLOP_LISTS_VERSION)),
  entry('FLOP', 'FDEL', 'fdel', FDEL_VERSION),
  // Reference data: `reference.AIRL.DNLD`, …; seasonal schedules: `reference.SCHS.DNLD`.
  ...REFERENCE_KIND_NAMES.flatMap((kind) => REFERENCE_SUBTYPES.map((s) => entry(kind, s, `reference.${kind}`, REFERENCE_VERSION))),
  ...SEASONAL_SUBTYPES.map((s) => entry(SEASONAL_TYPE, s, `reference.${SEASONAL_TYPE}`, REFERENCE_VERSION)),
  // IATA AIDX FlightLegNotifRQ (docs/contract/aidx.md): `aidx.FLEG`.
  entry('AIDX', 'FLEG', 'aidx', AIDX_VERSION),
]));

/** The handler for a (normalized) TYPE/STYP, or undefined → UNSUPPORTED. */
export function handlerFor(type: string, styp: string): HandlerInfo | undefined {
  const key = handlerKey(type, styp);
  return Object.hasOwn(HANDLERS, key) ? HANDLERS[key] : undefined;
}
