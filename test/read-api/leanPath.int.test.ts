/**
 * The fast path (src/read-api/lean: flight documents, no graphql-js execution) answers exactly what
 * graphql-js executing the schema's resolvers over the rows answers: a corpus day (every corpus
 * message) goes through the assembled app, then every flight, the boards of
 * their days (paged, with deleted flights, totalCount, aliases, fragments, @include, __typename),
 * and flight(asOf) at each decision instant are asked both ways — with personal data withheld and
 * with it shown — and must be the same JSON text.
 */
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { createLoaders, type ReadApiDeps } from '../../src/read-api/graphql/context.ts';
import { createReadSchema, createReadYoga } from '../../src/read-api/graphql/createYoga.ts';
import { gql } from '../../src/read-api/lean/graphqlRuntime.ts';
import { createFlightFeed } from '../../src/read-api/live/flightFeed.ts';
import { seedCorpusDay } from '../consistency/support/corpusDay.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { countingDb } from './support/harness.ts';

const db = fileDatabase('rapilean');

beforeAll(async () => {
  await seedCorpusDay(db);
}, 180_000);

/** Every field of `type`, recursively (the schema has no cycles below Flight). */
function everything(schema: GraphQLSchema, typeName: string): string {
  const type = schema.getType(typeName) as GraphQLObjectType;
  return Object.values(type.getFields())
    .map((f) => {
      const named = gql.getNamedType(f.type);
      return gql.isObjectType(named) ? `${f.name} { ${everything(schema, named.name)} }` : f.name;
    })
    .join(' ');
}

function bothPaths(exposePersonalData: boolean) {
  const counted = countingDb(db.pool);
  const deps: ReadApiDeps = { db: counted, clock: new FakeClock('2025-03-14T04:00:00Z'), log: silentLogger, tz: 'Asia/Shanghai', identityIncludeDay: false, exposePersonalData };
  const feed = createFlightFeed({ pool: db.pool, clock: deps.clock, log: silentLogger });
  const yoga = createReadYoga(deps, feed);
  const schema = createReadSchema(deps, feed);
  return {
    schema,
    statements: counted.statements,
    async fast(query: string, variables: Record<string, unknown> = {}): Promise<string> {
      const res = await yoga.fetch('http://localhost/graphql', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }),
      });
      return res.text();
    },
    async normal(query: string, variables: Record<string, unknown> = {}): Promise<string> {
      const result = await gql.execute({ schema, document: gql.parse(query), variableValues: variables, contextValue: { deps, loaders: createLoaders(deps.db) } });
      return JSON.stringify(result);
    },
  };
}

describe.each([false, true])('fast path = graphql-js (personal data shown: %s)', (expose) => {
  const paths = () => bothPaths(expose);

  it('for every flight, every board page of its day, and flight(asOf) at each decision', async () => {
    const p = paths();
    const all = everything(p.schema, 'Flight');
    const { rows: flights } = await db.pool.query<{ flid: string; day: string }>('SELECT flid::text, operation_day::text AS day FROM flight_schd ORDER BY flid');
    expect(flights.length).toBeGreaterThan(3);
    const { rows: infos } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM reference_record');
    expect(infos[0]!.n).toBeGreaterThan(0);

    const FLIGHT = `query F($flid: ID!, $asOf: DateTime) { flight(flid: $flid, asOf: $asOf) { ${all} } }`;
    let shownInfo = 0;
    let vip = 0;
    for (const { flid } of flights) {
      p.statements.length = 0;
      const fast = await p.fast(FLIGHT, { flid });
      expect(p.statements.some((s) => /doc_version/.test(s)), `flight ${flid} took the fast path`).toBe(true);
      expect(fast, `flight ${flid}`).toBe(await p.normal(FLIGHT, { flid }));
      expect(JSON.parse(fast).errors).toBeUndefined();
      if (/"kind":"/.test(fast)) shownInfo++;
      if (/"kind":"VIPL"/.test(fast)) vip++;
      const { rows: at } = await db.pool.query<{ at: string }>(
        `SELECT to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM decision_event WHERE $1::text = ANY(flids) ORDER BY position`,
        [flid],
      );
      for (const { at: asOf } of at) expect(await p.fast(FLIGHT, { flid, asOf }), `flight ${flid} asOf ${asOf}`).toBe(await p.normal(FLIGHT, { flid, asOf }));
    }
    expect(shownInfo).toBeGreaterThan(0); // some …Info field named a record
    expect(vip).toBeGreaterThan(0); // and some a VIPL record, whose personal fields depend on the setting

    const BOARD = `query B($day: Date, $after: String, $deleted: Boolean, $withCount: Boolean!) {
      flights(operationDay: $day, first: 2, after: $after, includeDeleted: $deleted) {
        __typename totalCount @include(if: $withCount)
        pageInfo { hasNextPage endCursor }
        edges { cursor node { ...All again: flid st: status } }
      } }
      fragment All on Flight { __typename ${all} }`;
    for (const day of [...new Set(flights.map((f) => f.day))]) {
      for (const deleted of [false, true]) {
        let after: string | null = null;
        for (let page = 0; page < 50; page++) {
          const vars = { day, after, deleted, withCount: page % 2 === 0 };
          const fast = await p.fast(BOARD, vars);
          expect(fast, `board ${day} page ${page}`).toBe(await p.normal(BOARD, vars));
          const info = (JSON.parse(fast) as { data: { flights: { pageInfo: { hasNextPage: boolean; endCursor: string | null } } } }).data.flights.pageInfo;
          if (!info.hasNextPage) break;
          after = info.endCursor;
        }
      }
    }
  });

  it('and for what the fast path leaves to graphql-js: bad arguments, unknown flights, other root fields', async () => {
    const p = paths();
    for (const [query, variables] of [
      ['{ flight(flid: "x") { flid } }', {}],
      ['{ flight(flid: "1") { flid statusInfo { code } } }', {}],
      ['query($n: Int!) { flights(first: $n) { edges { node { flid } } } }', { n: 501 }],
      ['query($a: String) { flights(after: $a) { edges { node { flid } } } }', { a: 'bm90IGEgY3Vyc29y' }],
      ['{ flights(first: 1) { edges { node { flid } } } pipeline { logPosition } }', {}],
    ] as const) {
      // yoga adds nothing to data; its errors are graphql-js's, masked: compare what a client reads.
      const read = (text: string) => {
        const r = JSON.parse(text) as { data?: unknown; errors?: { message: string; path?: unknown; extensions?: { code?: unknown } }[] };
        return { data: r.data, errors: r.errors?.map((e) => ({ message: e.message, path: e.path, code: e.extensions?.code })) };
      };
      expect(read(await p.fast(query, variables)), query).toEqual(read(await p.normal(query, variables)));
    }
  });
});
