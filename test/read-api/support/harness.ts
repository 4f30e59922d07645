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

/** One page of a `flights` board and the SQL statements it took. */
export interface BoardPage {
  readonly flights: any;
  readonly statements: readonly string[];
}

/** Page through the board `query` ($first, $after) to its end, `first` flights a page; each page with its statements. */
export async function boardPages(h: Harness, query: string, first: number): Promise<BoardPage[]> {
  const pages: BoardPage[] = [];
  let after: string | null = null;
  for (;;) {
    h.db.reset();
    const r = await h.gql(query, { first, after });
    if (r.errors) throw new Error(`board page after ${after}: ${JSON.stringify(r.errors)}`);
    const flights = r.data!.flights;
    pages.push({ flights, statements: [...h.db.statements] });
    if (!flights.pageInfo.hasNextPage) return pages;
    after = flights.pageInfo.endCursor;
  }
}
