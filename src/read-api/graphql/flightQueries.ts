import type { ReadContext } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { badInput, requireInt64, requirePageSize } from './errors.ts';
import { flightParent, type FlightParent } from './flightResolvers.ts';
import { flightAsOf } from '../asOf/flightAsOf.ts';
import { parseDateTime, parseDay } from './scalars.ts';
import { countBoard, selectBoardPage, selectFlightsByLeg, type BoardFilter, type BoardKey, type LegSearch } from '../sql/selectBoard.ts';
import { legFfidPrefix } from '../../domain/handlers/aidx.ts';

export interface FlightsArgs {
  operationDay?: string | null;
  airline?: string | null;
  flightNo?: string | null;
  direction?: 'ARRIVAL' | 'DEPARTURE' | null;
  status?: string | null;
  stand?: string | null;
  gate?: string | null;
  includeDeleted?: boolean | null;
  first: number;
  after?: string | null;
}

const BOARD_CURSOR = 'flights';

export const boardCursor = (f: Pick<FlightParent, 'operationDay' | 'scheduledTime' | 'flid'>): string => encodeCursor(BOARD_CURSOR, [f.operationDay, f.scheduledTime, f.flid]);

function parseBoardCursor(after: string): BoardKey {
  const [operationDay = null, scheduledTime = null, flid = null] = decodeCursor(BOARD_CURSOR, after, 3);
  // Every part goes to SQL with a cast: check each as strictly as the cast would, or a forged
  // cursor becomes an INTERNAL_SERVER_ERROR instead of the client's error.
  const fits = (check: () => unknown) => {
    try {
      check();
      return true;
    } catch {
      return false;
    }
  };
  const valid =
    operationDay !== null && flid !== null &&
    fits(() => parseDay(operationDay)) &&
    fits(() => requireInt64(flid, 'after')) &&
    (scheduledTime === null || fits(() => parseDateTime(scheduledTime)));
  if (!valid) throw badInput('after is not a cursor of this connection', 'after');
  return { operationDay, scheduledTime, flid };
}

/** The arguments of `flights(…)` checked: page size, filter, the key after which the page starts. */
export function boardQuery(args: FlightsArgs): { first: number; filter: BoardFilter; after: BoardKey | null } {
  const first = requirePageSize(args.first);
  const filter: BoardFilter = {
    operationDay: args.operationDay ?? null,
    airline: args.airline ?? null,
    flightNo: args.flightNo ?? null,
    direction: args.direction === 'ARRIVAL' ? 'A' : args.direction === 'DEPARTURE' ? 'D' : null,
    status: args.status ?? null,
    stand: args.stand ?? null,
    gate: args.gate ?? null,
    includeDeleted: args.includeDeleted ?? false,
  };
  return { first, filter, after: args.after != null ? parseBoardCursor(args.after) : null };
}

export interface FlightByLegArgs {
  airline: string;
  flightNumber: string;
  originDate: string;
  direction: 'ARRIVAL' | 'DEPARTURE';
  suffix?: string | null;
}

/** The leg key checked as the AIDX decoder checks it (docs/contract/aidx.md "Finding a leg"). */
export function legQuery(args: FlightByLegArgs): LegSearch {
  const airline = args.airline.trim().toUpperCase();
  const number = args.flightNumber.trim().toUpperCase();
  const suffix = (args.suffix ?? '').trim().toUpperCase();
  if (!/^[A-Z0-9]{2,3}$/.test(airline)) throw badInput('airline must be a 2- or 3-character designator', 'airline');
  if (!/^[A-Z0-9]{1,5}$/.test(number)) throw badInput('flightNumber must be 1 to 5 letters or digits', 'flightNumber');
  if (!/^[A-Z]?$/.test(suffix)) throw badInput('suffix must be one letter', 'suffix');
  const day = parseDay(args.originDate);
  const direction = args.direction === 'ARRIVAL' ? 'A' : 'D';
  // A SIS flight writes the airline in front, the number with or without leading zeros (legNumber).
  const bare = `${number.replace(/^0+(?=\d)/, '')}${suffix}`;
  const padded = `${/^\d+$/.test(number) ? number.replace(/^0+(?=\d)/, '').padStart(4, '0') : number}${suffix}`;
  const sisFlightNos = [...new Set([`${airline}${bare}`, `${airline}${padded}`, bare, padded])];
  return {
    flightNo: `${number}${suffix}`, ffidPrefix: `${legFfidPrefix(airline, number, day, direction)}${suffix}|`,
    sisFlightNos, airline, direction, day,
  };
}

export const flightQueries = {
  Query: {
    async flight(_: unknown, args: { flid: string; asOf?: string | null }, ctx: ReadContext): Promise<FlightParent | null> {
      const flid = requireInt64(args.flid, 'flid');
      if (args.asOf != null) {
        const state = await flightAsOf(ctx.deps.db, flid, args.asOf);
        return state ? flightParent(state, true) : null;
      }
      const state = await ctx.loaders.flight.load(flid);
      return state ? flightParent(state, false) : null;
    },

    async flightByLeg(_: unknown, args: FlightByLegArgs, ctx: ReadContext): Promise<FlightParent[]> {
      return (await selectFlightsByLeg(ctx.deps.db, legQuery(args))).map((s) => flightParent(s, false));
    },

    async flights(_: unknown, args: FlightsArgs, ctx: ReadContext) {
      const { first, filter, after } = boardQuery(args);
      const rows = await selectBoardPage(ctx.deps.db, filter, after, first + 1);
      const nodes = rows.slice(0, first).map((s) => flightParent(s, false));
      const edges = nodes.map((node) => ({ cursor: boardCursor(node), node }));
      return {
        edges,
        pageInfo: { hasNextPage: rows.length > first, endCursor: edges.at(-1)?.cursor ?? null },
        // resolved only when asked for (graphql-js calls function-valued fields)
        totalCount: () => countBoard(ctx.deps.db, filter),
      };
    },
  },
};
