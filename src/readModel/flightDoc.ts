/**
 * A flight's read-model document: its whole GraphQL view (toFlightView with every list in the
 * contract's order, instants as UTC ISO text, plus deletedReason) as one JSON value, stored beside
 * its flight_schd row (`doc`, migrations 170 and 310) by the flight projector in the same statement
 * as the row. The read API's fast path serves boards and flight(flid) from it (one statement instead
 * of one per detail table); `msgx verify` compares it with the fold like the rows.
 *
 * DOC_VERSION names the shape. Bump it whenever what flightDoc() returns for some state changes
 * (a field added to the view, a list order, a renaming): rows of another version are served from the
 * rows until `msgx rebuild flights` writes them again. flightDoc.unit.test.ts pins the shape.
 */
import type { FlightState } from '../domain/flight.ts';
import { viewOf, type FlightView, type ListsView } from '../domain/flightView.ts';
import { inListOrder } from '../domain/lists.ts';

export const DOC_VERSION = 1;

export interface FlightDoc extends FlightView {
  /** (msgx) why a deleted flight is deleted (fdel, plan-snapshot). */
  readonly deletedReason: string | null;
}

const utc = <T>(v: T): T => v;

/**
 * The lists as the view shows them in UTC: the state's own items (a UTC view's item is a copy of
 * the state's with the same keys and values), only route points get their `kind`. A list already
 * in contract order is the state's array itself, so a document shares what it can with its state:
 * written (JSON.stringify) or compared, never edited.
 */
const docLists: ListsView = (list, items) => {
  const ordered = inListOrder(list, items) as readonly object[];
  if (list === 'route' || list === 'adjacent') {
    const kind = list === 'route' ? 'ERUT' : 'ROUT';
    return ordered.map((p) => ({ ...p, kind })) as never;
  }
  return ordered as never;
};

/** The view of `state` with its lists in the contract's order (the state's own order may differ: a fold keeps message order). */
export function flightDoc(state: FlightState): FlightDoc {
  const doc = viewOf(state, utc, docLists) as FlightView & { deletedReason: string | null };
  doc.deletedReason = state.deletedReason;
  return doc;
}
