import { createGraphQLError } from 'graphql-yoga';
import type { ASTVisitor, ValidationContext } from 'graphql';
import { ErrorCode } from './errors.ts';
import { analyseOperation } from './queryAnalysis.ts';

export const MAX_QUERY_DEPTH = 10;
/** Introspection (GraphiQL's query nests `ofType` about a dozen levels) has its own, larger bound. */
export const MAX_INTROSPECTION_DEPTH = 16;

/**
 * Validation rule: refuses operations nested deeper than `max` fields (fragments followed, each
 * measured once — see queryAnalysis.ts). Introspection fields (`__schema`, `__type`) are measured
 * apart against MAX_INTROSPECTION_DEPTH, so GraphiQL keeps working.
 */
export function depthLimitRule(max: number = MAX_QUERY_DEPTH) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const s = analyseOperation(context.getSchema(), context.getDocument(), node);
      if (s.depth > max) {
        context.reportError(
          createGraphQLError(`query is nested ${s.depth} levels deep; the limit is ${max}`, {
            nodes: [node],
            extensions: { code: ErrorCode.depthLimitExceeded, max, depth: s.depth },
          }),
        );
      }
      if (s.introspectionDepth > MAX_INTROSPECTION_DEPTH) {
        context.reportError(
          createGraphQLError(`introspection is nested ${s.introspectionDepth} levels deep; the limit is ${MAX_INTROSPECTION_DEPTH}`, {
            nodes: [node],
            extensions: { code: ErrorCode.depthLimitExceeded, max: MAX_INTROSPECTION_DEPTH, depth: s.introspectionDepth },
          }),
        );
      }
    },
  });
}
