/**
 * The `Flight` type: scalars come from the domain's toFlightView; detail lists come either with
 * the parent (a folded flight, asOf) or through per-request batch loaders over the read model
 * (one statement per detail table for all flights of a page).
 */
import type { FlightState, ListName } from '../../domain/flight.ts';
import { toFlightView, type FlightView } from '../../domain/flightView.ts';
import { emptyFields } from '../../domain/fields.ts';
import { emptyLists, LIST_NAMES, orderList } from '../../domain/lists.ts';
import { LIST_MAPPINGS } from '../../projections/flightRows.ts';
import type { Loaders, ReadContext } from './context.ts';

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
  const ordered = { ...state };
  for (const name of LIST_NAMES) (ordered as Record<ListName, unknown>)[name] = orderList(name, state[name]);
  return { ...toFlightView(ordered), deletedReason: state.deletedReason, listsIncluded };
}

/** GraphQL list field → the FlightState list behind it. */
const LIST_FIELDS = {
  stands: 'stands',
  gates: 'gates',
  checkInCounters: 'counters',
  baggageBelts: 'belts',
  chutes: 'chutes',
  bridges: 'bridges',
  chocks: 'chocks',
  delays: 'delays',
  services: 'services',
  routePoints: 'route',
  adjacentStations: 'adjacent',
} as const satisfies Record<string, ListName>;

type ListField = keyof typeof LIST_FIELDS;

function listResolver<F extends ListField>(field: F) {
  const list = LIST_FIELDS[field];
  const table = LIST_MAPPINGS[list].table;
  return async (p: FlightParent, _a: unknown, ctx: ReadContext): Promise<FlightView[F]> => {
    if (p.listsIncluded) return p[field];
    const lists = await (p.loaders ?? ctx.loaders).details[table].load(p.flid);
    // The view of a state holding just this list: the same mapping as every other flight.
    return toFlightView({ ...EMPTY_STATE, [list]: lists[list] })[field];
  };
}

const EMPTY_STATE: FlightState = {
  ...emptyFields(),
  ...emptyLists(),
  flid: '0',
  operationDay: '1970-01-01',
  deleted: false,
  deletedReason: null,
  stateVersion: 0,
  lastPosition: '0',
  lastMsgId: null,
  updatedAt: null,
};

export const flightResolvers = {
  Flight: Object.fromEntries((Object.keys(LIST_FIELDS) as ListField[]).map((f) => [f, listResolver(f)])),
};
