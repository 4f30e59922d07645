import type { GraphQLError } from 'graphql';
// yoga's own createGraphQLError: the same `graphql` instance yoga tests errors against (a
// bundler may load another copy of graphql for our modules, and then instanceof would fail).
import { createGraphQLError } from 'graphql-yoga';

/**
 * Intentional GraphQL errors carry `extensions.code`; anything else is masked by graphql-yoga as
 * "Unexpected error." with code INTERNAL_SERVER_ERROR (see createYoga.ts).
 */
export const ErrorCode = {
  badUserInput: 'BAD_USER_INPUT',
  pageSizeExceeded: 'PAGE_SIZE_EXCEEDED',
  depthLimitExceeded: 'DEPTH_LIMIT_EXCEEDED',
  costLimitExceeded: 'COST_LIMIT_EXCEEDED',
  internal: 'INTERNAL_SERVER_ERROR',
  archived: 'ARCHIVED',
} as const;

/** What was asked for is in an archived month: the error names the file `msgx restore` takes. */
export function archivedError(message: string, file: string): GraphQLError {
  return createGraphQLError(message, { extensions: { code: ErrorCode.archived, file } });
}

export function badInput(message: string, argument?: string): GraphQLError {
  return createGraphQLError(message, { extensions: { code: ErrorCode.badUserInput, ...(argument ? { argument } : {}) } });
}

/** A decimal int64 id (FLID, CMINMSGS id, position), or a BAD_USER_INPUT error naming the argument. */
export function requireInt64(value: string, argument: string): string {
  if (!/^\d{1,19}$/.test(value) || BigInt(value) > 9223372036854775807n) {
    throw badInput(`${argument} must be a decimal integer id (got ${JSON.stringify(value)})`, argument);
  }
  return value;
}

export const MAX_PAGE_SIZE = 500;

export function requirePageSize(first: number, argument = 'first'): number {
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE) {
    throw createGraphQLError(`${argument} must be between 0 and ${MAX_PAGE_SIZE} (got ${first})`, {
      extensions: { code: ErrorCode.pageSizeExceeded, argument, max: MAX_PAGE_SIZE },
    });
  }
  return first;
}
