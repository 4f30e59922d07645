/**
 * FLOP list subtypes (PSDT GTDT CKDT CLDT CHDT ABTM CHOT DELY SRVT ERUT): the message's items
 * replace the flight's whole list of that kind (already in canonical order from the codec).
 */
import type { FlightChange } from '../changes.ts';
import type { FlightState } from '../flight.ts';
import type { ListReplacement } from '../message.ts';
import { listChange } from './diff.ts';

export const FLOP_LISTS_VERSION = 1;

export function decideFlopList(state: FlightState, replacement: ListReplacement): FlightChange[] {
  return listChange(state, replacement.list, replacement.items);
}
