import { readFileSync } from 'node:fs';
import { createSchema, createYoga, maskError, type Plugin, type YogaInitialContext, type YogaServerInstance } from 'graphql-yoga';
import { createLoaders, type ReadApiDeps, type ReadContext } from './context.ts';
import { costLimitRule } from './costLimit.ts';
import { depthLimitRule, MAX_QUERY_DEPTH } from './depthLimit.ts';
import { flightQueries } from './flightQueries.ts';
import { flightResolvers } from './flightResolvers.ts';
import { historyResolvers } from './historyResolvers.ts';
import { messageResolvers } from './messageResolvers.ts';
import { pipelineResolvers } from './pipelineResolvers.ts';
import { createDateTimeScalar, DateScalar } from './scalars.ts';
import { subscriptionResolvers } from './subscriptionResolvers.ts';
import type { FlightFeed } from '../live/flightFeed.ts';

export const GRAPHQL_PATH = '/graphql';

const typeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

type ServerContext = Record<string, unknown>;
export type ReadYoga = YogaServerInstance<ServerContext, ReadContext>;

export function createReadYoga(deps: ReadApiDeps, feed: FlightFeed, opts: { maxDepth?: number } = {}): ReadYoga {
  const schema = createSchema<ServerContext & YogaInitialContext & ReadContext>({
    typeDefs,
    resolvers: [
      { DateTime: createDateTimeScalar(deps.tz), Date: DateScalar },
      flightQueries,
      flightResolvers,
      messageResolvers,
      historyResolvers,
      pipelineResolvers,
      subscriptionResolvers(feed),
    ],
  });
  const depthLimit: Plugin = {
    onValidate({ addValidationRule }) {
      addValidationRule(depthLimitRule(opts.maxDepth ?? MAX_QUERY_DEPTH));
      addValidationRule(costLimitRule());
    },
  };
  const log = deps.log;
  return createYoga<ServerContext, ReadContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: { title: 'msgx' },
    landingPage: false,
    plugins: [depthLimit],
    // Unexpected errors read "Unexpected error." with extensions.code INTERNAL_SERVER_ERROR, never
    // a stack; they are logged here, once. Intentional errors (GraphQLError with a code) pass.
    maskedErrors: {
      maskError(error, message) {
        const masked = maskError(error, message, false);
        if (masked !== error) log.error({ err: error }, 'graphql: unexpected error');
        return masked;
      },
    },
    logging: {
      debug: (...args: unknown[]) => log.debug({ args }, 'yoga'),
      info: (...args: unknown[]) => log.info({ args }, 'yoga'),
      warn: (...args: unknown[]) => log.warn({ args }, 'yoga'),
      error: (...args: unknown[]) => log.error({ args }, 'yoga'),
    },
    context: (): ReadContext => ({ deps, loaders: createLoaders(deps.db) }),
  });
}
