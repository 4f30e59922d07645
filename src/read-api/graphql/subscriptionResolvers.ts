import { createLoaders } from './context.ts';
import { requireInt64 } from './errors.ts';
import { flightParent } from './flightResolvers.ts';
import type { FlightChangeEvent, FlightFeed } from '../live/flightFeed.ts';

export function subscriptionResolvers(feed: FlightFeed) {
  return {
    Subscription: {
      flightChanged: {
        subscribe(_: unknown, args: { flid?: string | null; operationDay?: string | null }) {
          const flid = args.flid == null ? null : requireInt64(args.flid, 'flid');
          return feed.subscribe({ flid, operationDay: args.operationDay ?? null });
        },
        resolve(e: FlightChangeEvent) {
          // Fresh loaders per event: a subscription's context lives long, its lists must not be cached.
          return {
            flid: e.flid,
            position: e.position,
            type: e.type,
            flight: e.flight ? { ...flightParent(e.flight, false), loaders: createLoaders(feed.db) } : null,
          };
        },
      },
    },
  };
}
