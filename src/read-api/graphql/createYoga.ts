import { readFileSync } from 'node:fs';
import { createGraphQLError, createSchema, createYoga, maskError, type Plugin, type YogaInitialContext, type YogaServerInstance } from 'graphql-yoga';
import { createLoaders, type ReadApiDeps, type ReadContext } from './context.ts';
import { costLimitRule } from './costLimit.ts';
import { depthLimitRule, MAX_QUERY_DEPTH } from './depthLimit.ts';
import { flightQueries } from './flightQueries.ts';
import { flightResolvers } from './flightResolvers.ts';
import { historyResolvers } from './historyResolvers.ts';
import { messageResolvers } from './messageResolvers.ts';
import { pipelineResolvers } from './pipelineResolvers.ts';
import { referenceResolvers } from './referenceResolvers.ts';
import { createDateTimeScalar, DateScalar } from './scalars.ts';
import { subscriptionResolvers } from './subscriptionResolvers.ts';
import type { FlightFeed } from '../live/flightFeed.ts';
import { isConnectionError, SqlState, sqlState } from '../../platform/db.ts';
import { badInput } from './errors.ts';
import { operationsResolvers } from './operationsResolvers.ts';
import { progressResolvers } from './progressResolvers.ts';
import { leanPathPlugin } from '../lean/leanPlugin.ts';
import { createResponseCache } from './responseCache.ts';
import { createBoardFront, type BoardFront } from './boardFront.ts';

export const GRAPHQL_PATH = '/graphql';
/** Tokens one GraphQL document may have (GraphiQL's introspection query has ~300). */
export const MAX_QUERY_TOKENS = 20_000;
/** Most JSON text the board response cache keeps (graphql/responseCache.ts): ~60 pages of 500 flights with every field. */
const RESPONSE_CACHE_BYTES = 64 * 2 ** 20;
/** While the database is unreachable every query fails the same way: say so once per this period. */
const UNREACHABLE_LOG_EVERY_MS = 60_000;

const typeDefs = [
  readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8'),
  readFileSync(new URL('./reference.graphql', import.meta.url), 'utf8'),
  readFileSync(new URL('./operations.graphql', import.meta.url), 'utf8'),
  readFileSync(new URL('./progress.graphql', import.meta.url), 'utf8'),
];

type ServerContext = Record<string, unknown>;
/** yoga, and in front of it the board cache's HTTP front (boardFront.ts). */
export type ReadYoga = YogaServerInstance<ServerContext, ReadContext> & { readonly front: BoardFront };

/** The read API's executable schema (graphql-js executes it; the fast path, lean/, reads its types). */
export function createReadSchema(deps: ReadApiDeps, feed: FlightFeed) {
  return createSchema<ServerContext & YogaInitialContext & ReadContext>({
    typeDefs,
    resolvers: [
      { DateTime: createDateTimeScalar(deps.tz), Date: DateScalar },
      flightQueries,
      flightResolvers,
      messageResolvers,
      historyResolvers,
      pipelineResolvers,
      referenceResolvers,
      operationsResolvers,
      progressResolvers,
      subscriptionResolvers(feed),
    ],
  });
}

export function createReadYoga(deps: ReadApiDeps, feed: FlightFeed, opts: { maxDepth?: number } = {}): ReadYoga {
  const schema = createReadSchema(deps, feed);
  const depthLimit: Plugin = {
    // A document of at most MAX_QUERY_TOKENS tokens: parsing (and every rule after it) stays short.
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => parseFn(source, { ...options, maxTokens: MAX_QUERY_TOKENS }));
    },
    onValidate({ addValidationRule }) {
      addValidationRule(depthLimitRule(opts.maxDepth ?? MAX_QUERY_DEPTH));
      addValidationRule(costLimitRule());
    },
  };
  const log = deps.log;
  const settings = JSON.stringify([deps.tz, deps.exposePersonalData === true]);
  const responseCache = createResponseCache({ db: deps.db, settings, maxBytes: RESPONSE_CACHE_BYTES });
  let unreachableLoggedAt: number | null = null;
  const logUnexpected = (error: Error): void => {
    const cause = (error as { originalError?: unknown }).originalError ?? error;
    if (!isConnectionError(cause)) {
      log.error({ err: error }, 'graphql: unexpected error');
      return;
    }
    const now = deps.clock.now().getTime();
    if (unreachableLoggedAt !== null && now - unreachableLoggedAt < UNREACHABLE_LOG_EVERY_MS) {
      log.debug({ err: error }, 'graphql: database still unreachable');
      return;
    }
    unreachableLoggedAt = now;
    log.error({ err: error }, 'graphql: database unreachable; queries fail until it is back');
  };
  const yoga = createYoga<ServerContext, ReadContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // GraphiQL is msgx's own page (pages/pageRoutes.ts): yoga's loads its scripts from a CDN.
    graphiql: false,
    landingPage: false,
    // yoga's default CORS reflects any origin with credentials. Off unless origins are configured;
    // then exactly those, without credentials (the API has no cookies).
    cors: deps.allowedOrigins && deps.allowedOrigins.length > 0
      ? { origin: [...deps.allowedOrigins], credentials: false, methods: ['GET', 'POST'], allowedHeaders: ['content-type', 'accept'] }
      : false,
    // A cached board answer first (it needs no execution), then the fast path (lean/), then graphql-js.
    plugins: [depthLimit, responseCache.plugin, leanPathPlugin(log)],
    // Unexpected errors read "Unexpected error." with extensions.code INTERNAL_SERVER_ERROR, never
    // a stack; they are logged here, once (a database outage once a minute, not once per query).
    // Intentional errors (GraphQLError with a code) pass.
    maskedErrors: {
      maskError(error, message) {
        // A value the database refused (SQLSTATE class 22: out of range, invalid text) came from the
        // client: its fault, said as BAD_USER_INPUT and logged at info without a stack (docs/security.md).
        const cause = (error as { originalError?: unknown }).originalError;
        const state = sqlState(cause);
        if (state?.startsWith('22')) {
          log.info({ sqlState: state, reason: (cause as Error).message.slice(0, 200) }, 'graphql: a value of the request was refused');
          return badInput('an argument value is out of range or malformed');
        }
        if (state === SqlState.queryCanceled) {
          log.warn({ sqlState: state }, 'graphql: a query ran into the read statement_timeout');
          return createGraphQLError('the query took too long (MSGX_READ_STATEMENT_TIMEOUT_MS); narrow it', { extensions: { code: 'QUERY_TIMEOUT' } });
        }
        const masked = maskError(error, message, false);
        if (masked !== error) logUnexpected(error as Error);
        return masked;
      },
    },
    logging: {
      debug: (...args: unknown[]) => log.debug({ args }, 'yoga'),
      info: (...args: unknown[]) => log.info({ args }, 'yoga'),
      warn: (...args: unknown[]) => log.warn({ args }, 'yoga'),
      // yoga logs every error it masks; maskError above already did (with the error serialised).
      error: (...args: unknown[]) => log.debug({ args }, 'yoga'),
    },
    context: (): ReadContext => ({ deps, loaders: createLoaders(deps.db) }),
  });
  const front = createBoardFront({ yoga, db: deps.db, settings, maxBytes: RESPONSE_CACHE_BYTES, maxTokens: MAX_QUERY_TOKENS });
  return Object.assign(yoga, { front });
}
