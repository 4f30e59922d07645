/**
 * The handler registry: one entry per TYPE/STYP of the catalogue (3 SCHD + 29 FLOP = 32), with
 * the name and version recorded on every decision. A pair that is not here is UNSUPPORTED.
 * Bump a group's version whenever its decisions change, so a rebuild can tell old from new.
 */
import {
  FLOP_FIELD_SUBTYPES, FLOP_LIST_SUBTYPES, SCHD_SUBTYPES, type FlopFieldStyp, type FlopListStyp,
} from '../catalogue.ts';
import { FDEL_VERSION } from './fdel.ts';
import { FLOP_FIELDS_VERSION } from './flopFields.ts';
import { FLOP_LISTS_VERSION } from './flopLists.ts';
import { SCHD_DELETE_VERSION, SCHD_SNAPSHOT_VERSION, SCHD_UPSERT_VERSION } from './schd.ts';

export interface HandlerInfo {
  readonly type: 'SCHD' | 'FLOP';
  readonly styp: string;
  /** e.g. `schdSnapshot.DNLD`, `flopFields.ESTT` */
  readonly name: string;
  readonly version: number;
}

export const handlerKey = (type: string, styp: string): string => `${type}/${styp}`;

function entry(type: 'SCHD' | 'FLOP', styp: string, group: string, version: number): [string, HandlerInfo] {
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
]));

/** The handler for a (normalized) TYPE/STYP, or undefined → UNSUPPORTED. */
export function handlerFor(type: string, styp: string): HandlerInfo | undefined {
  const key = handlerKey(type, styp);
  return Object.hasOwn(HANDLERS, key) ? HANDLERS[key] : undefined;
}
