import { createGraphQLError } from 'graphql-yoga';
import type { ASTVisitor, GraphQLError, OperationDefinitionNode, ValidationContext } from 'graphql';
import { ErrorCode, MAX_PAGE_SIZE } from './errors.ts';
import { analyseOperation } from './queryAnalysis.ts';

/** Most rows one operation may ask for across its paginated fields (aliases add up). */
export const MAX_QUERY_ROWS = 2000;
/**
 * Most weighted cost (queryAnalysis.ts): a full board of 500 flights with every list is ~6,000;
 * 20 `rawXml` or 50 `flight(asOf:)` fill it.
 */
export const MAX_QUERY_COST = 10_000;
/** Most aliased fields per operation (fragments expanded). */
export const MAX_ALIASES = 100;
/** Introspection lists nested at most this deep (types › fields › args), so its answer stays schema-sized. */
export const MAX_INTROSPECTION_LISTS = 3;

export interface CostLimits {
  readonly rows: number;
  readonly cost: number;
  readonly aliases: number;
}

export const DEFAULT_COST_LIMITS: CostLimits = { rows: MAX_QUERY_ROWS, cost: MAX_QUERY_COST, aliases: MAX_ALIASES };

/**
 * Validation rule: bounds what one operation may ask for — rows across paginated fields, a
 * weighted cost, aliases, out-of-range `first` literals (even under `@skip`) and the size of
 * introspection. Runs before any resolver, in time linear in the document.
 */
export function costLimitRule(limits: CostLimits | number = DEFAULT_COST_LIMITS) {
  const max: CostLimits = typeof limits === 'number' ? { ...DEFAULT_COST_LIMITS, rows: limits } : limits;
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const s = analyseOperation(context.getSchema(), context.getDocument(), node);
      const report = (e: GraphQLError) => context.reportError(e);
      for (const f of s.badFirst) {
        report(
          err(node, `first must be between 0 and ${MAX_PAGE_SIZE} (got ${f.value.slice(0, 40)} on ${f.field})`, {
            code: ErrorCode.pageSizeExceeded,
            argument: 'first',
            max: MAX_PAGE_SIZE,
          }),
        );
      }
      if (s.rows > max.rows) {
        report(err(node, `query asks for up to ${s.rows} rows across its paginated fields; the limit is ${max.rows}`, { code: ErrorCode.costLimitExceeded, max: max.rows, rows: s.rows }));
      }
      if (s.cost > max.cost) {
        report(err(node, `query costs ${s.cost}; the limit is ${max.cost}`, { code: ErrorCode.costLimitExceeded, max: max.cost, cost: s.cost }));
      }
      if (s.aliases > max.aliases) {
        report(err(node, `query has ${s.aliases} aliased fields; the limit is ${max.aliases}`, { code: ErrorCode.costLimitExceeded, max: max.aliases, aliases: s.aliases }));
      }
      if (s.introspectionLists > MAX_INTROSPECTION_LISTS) {
        report(
          err(node, `introspection nests ${s.introspectionLists} lists; the limit is ${MAX_INTROSPECTION_LISTS}`, {
            code: ErrorCode.costLimitExceeded,
            max: MAX_INTROSPECTION_LISTS,
          }),
        );
      }
    },
  });
}

function err(node: OperationDefinitionNode, message: string, extensions: Record<string, unknown>): GraphQLError {
  return createGraphQLError(message, { nodes: [node], extensions });
}
