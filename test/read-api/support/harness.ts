import type pg from 'pg';
import { FakeClock } from '../../../src/platform/clock.ts';
import type { Queryable } from '../../../src/platform/db.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import type { ReadApiDeps } from '../../../src/read-api/graphql/context.ts';
import { createReadYoga, type ReadYoga } from '../../../src/read-api/graphql/createYoga.ts';
import { createFlightFeed, type FlightFeed } from '../../../src/read-api/live/flightFeed.ts';

/** A Queryable that counts the statements sent through it (N+1 detection). */
export type CountingDb = Pick<pg.Pool, 'query'> & {
  readonly statements: string[];
  reset(): void;
};

export function countingDb(inner: Queryable): CountingDb {
  const statements: string[] = [];
  return {
    statements,
    reset: () => void (statements.length = 0),
    query: ((text: unknown, values?: unknown) => {
      statements.push(typeof text === 'string' ? text : String((text as { text?: string }).text));
      return (inner.query as (t: unknown, v?: unknown) => Promise<unknown>)(text, values);
    }) as pg.Pool['query'],
  };
}

export interface GqlResult {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: Record<string, unknown>; path?: unknown[] }[];
}

export interface Harness {
  readonly yoga: ReadYoga;
  readonly db: CountingDb;
  readonly clock: FakeClock;
  readonly feed: FlightFeed;
  gql(query: string, variables?: Record<string, unknown>): Promise<GqlResult>;
}

export function createHarness(pool: pg.Pool, over: Partial<ReadApiDeps> = {}): Harness {
  const db = countingDb(pool);
  const clock = new FakeClock('2025-03-14T04:00:00Z');
  const feed = createFlightFeed({ pool, clock, log: silentLogger });
  const yoga = createReadYoga({ db, clock, log: silentLogger, tz: 'Asia/Shanghai', identityIncludeDay: false, ...over }, feed);
  return {
    yoga,
    db,
    clock,
    feed,
    async gql(query, variables) {
      const res = await yoga.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as GqlResult;
    },
  };
}
