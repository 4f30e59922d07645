/**
 * The fast path as a yoga plugin: an operation with a lean plan (leanPlan.ts) is answered from
 * flight documents (leanRun.ts); any other operation — and any operation the fast path gives up on
 * — is executed by graphql-js exactly as before. Both give the same answer
 * (test/read-api/leanPath.int.test.ts compares them on a corpus day).
 */
import type { Plugin } from 'graphql-yoga';
import { isConnectionError, sqlState } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ReadContext } from '../graphql/context.ts';
import { gql } from './graphqlRuntime.ts';
import { leanPlan } from './leanPlan.ts';
import { NotLean, runLean } from './leanRun.ts';

export function leanPathPlugin(log: Logger): Plugin<ReadContext> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const plan = leanPlan(args.schema, args.document, args.operationName, args.variableValues as Record<string, unknown> | undefined);
      if (plan === null) return;
      setExecuteFn(async (a) => {
        try {
          const text = await runLean(plan, a.contextValue as ReadContext);
          // yoga writes `stringify()`'s text as the body; `data` is parsed only if something asks for it.
          return { get data(): unknown { return (JSON.parse(text) as { data: unknown }).data; }, stringify: () => text } as never;
        } catch (err) {
          // A bad argument, an answer with errors, a database error: graphql-js executes the
          // operation and reports it in its own shape (and the error masking logs it once). Only
          // a failure of the fast path itself is logged here.
          const expected = err instanceof NotLean || err instanceof gql.GraphQLError || sqlState(err) !== undefined || isConnectionError(err);
          if (!expected) log.warn({ err }, 'graphql: fast path failed; executed normally');
          return executeFn(a);
        }
      });
    },
  };
}
