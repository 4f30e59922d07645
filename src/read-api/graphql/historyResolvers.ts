import type { ReadContext } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { badInput, requireInt64, requirePageSize } from './errors.ts';
import type { DecisionParent } from './messageResolvers.ts';
import { selectFlightHistory } from '../../log/readForMessages.ts';

const HISTORY_CURSOR = 'history';

export const historyResolvers = {
  Query: {
    async flightHistory(_: unknown, args: { flid: string; first: number; after?: string | null }, ctx: ReadContext) {
      const flid = requireInt64(args.flid, 'flid');
      const first = requirePageSize(args.first);
      let after: string | null = null;
      if (args.after != null) {
        const [position] = decodeCursor(HISTORY_CURSOR, args.after, 1);
        if (position == null || !/^\d{1,19}$/.test(position) || BigInt(position) > 9223372036854775807n) {
          throw badInput('after is not a cursor of this connection', 'after');
        }
        after = position;
      }
      const rows = await selectFlightHistory(ctx.deps.db, flid, after, first + 1);
      const edges = rows.slice(0, first).map((d) => ({
        cursor: encodeCursor(HISTORY_CURSOR, [d.position]),
        node: { ...d, onlyFlid: flid } satisfies DecisionParent,
      }));
      return { edges, pageInfo: { hasNextPage: rows.length > first, endCursor: edges.at(-1)?.cursor ?? null } };
    },
  },
};
