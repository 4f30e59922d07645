/**
 * The `Flight` type: scalars come from the domain's toFlightView; detail lists come either with
 * the parent (a folded flight, asOf) or through per-request batch loaders over the read model
 * (one statement per detail table for all flights of a page).
 */
import type { FlightState, ListName } from '../../domain/flight.ts';
import { listField, toFlightView, toListView, type FlightView, type ListField } from '../../domain/flightView.ts';
import { LIST_NAMES } from '../../domain/lists.ts';
import { flightDoc } from '../../readModel/flightDoc.ts';
import { LIST_MAPPINGS } from '../../readModel/flightRows.ts';
import type { Loaders, ReadContext } from './context.ts';
import { tagAllocations } from './referenceResolvers.ts';

export interface FlightParent extends FlightView {
  /** true when the lists above are the flight's (folded state); false: load them from the read model. */
  readonly listsIncluded: boolean;
  /** (msgx) why a deleted flight is deleted (fdel, plan-snapshot). */
  readonly deletedReason: string | null;
  /** Loaders to use instead of the request's (subscription events: one set per event). */
  readonly loaders?: Loaders;
}

export function flightParent(state: FlightState, listsIncluded: boolean): FlightParent {
  if (!listsIncluded) return { ...toFlightView(state), deletedReason: state.deletedReason, listsIncluded };
  return { ...flightDoc(state), listsIncluded };
}

function listResolver<L extends ListName>(list: L) {
  const field = listField(list);
  const table = LIST_MAPPINGS[list].table;
  return async (p: FlightParent, _a: unknown, ctx: ReadContext): Promise<FlightView[ListField<L>]> => {
    if (p.listsIncluded) return tagAllocations(list, p[field]) as FlightView[ListField<L>];
    const lists = await (p.loaders ?? ctx.loaders).details[table].load(p.flid);
    return tagAllocations(list, toListView(list, lists[list])) as FlightView[ListField<L>];
  };
}

export const flightResolvers = {
  Flight: Object.fromEntries(LIST_NAMES.map((list) => [listField(list), listResolver(list)])),
};
