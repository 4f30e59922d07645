/**
 * A flight's read-model document: its whole GraphQL view (toFlightView with every list in the
 * contract's order, instants as UTC ISO text, plus deletedReason) as one JSON value, stored beside
 * its flight_schd row (`doc`, migration 170) by the flight projector in the same statement as the
 * row. The read API's fast path serves boards and flight(flid) from it (one statement instead of
 * one per detail table); `msgx verify` compares it with the fold like the rows.
 *
 * DOC_VERSION names the shape. Bump it whenever what flightDoc() returns for some state changes
 * (a field added to the view, a list order, a renaming): rows of another version are served from the
 * rows until `msgx rebuild flights` writes them again. flightDoc.unit.test.ts pins the shape.
 */
import type { FlightState, ListName } from '../domain/flight.ts';
import { toFlightView, type FlightView } from '../domain/flightView.ts';
import { LIST_NAMES, orderList } from '../domain/lists.ts';

export const DOC_VERSION = 1;

export interface FlightDoc extends FlightView {
  /** (msgx) why a deleted flight is deleted (fdel, plan-snapshot). */
  readonly deletedReason: string | null;
}

/** The view of `state` with its lists in the contract's order (the state's own order may differ: a fold keeps message order). */
export function flightDoc(state: FlightState): FlightDoc {
  const ordered = { ...state };
  for (const name of LIST_NAMES) (ordered as Record<ListName, unknown>)[name] = orderList(name, state[name]);
  return { ...toFlightView(ordered), deletedReason: state.deletedReason };
}
