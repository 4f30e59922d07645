import { createGraphQLError } from 'graphql-yoga';
import { Kind, type ASTVisitor, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';
import { ErrorCode, MAX_PAGE_SIZE } from './errors.ts';

/** Most rows one operation may ask for across its paginated fields (aliases add up). */
export const MAX_QUERY_ROWS = 2000;
/** Paginated fields and their default page size (graphql.md). */
const PAGINATED: Record<string, number> = { flights: 100, flightHistory: 100, reference: 100, seasonalFlights: 100 };

/**
 * Validation rule: the depth rule alone lets one query repeat `flights(first: 500)` under many
 * aliases. This adds up the `first` of every paginated field (a variable counts as the page-size
 * limit, since validation runs before variables are known) and refuses operations over `max` rows.
 */
export function costLimitRule(max: number = MAX_QUERY_ROWS) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
    const pageOf = (field: FieldNode): number => {
      const arg = field.arguments?.find((a) => a.name.value === 'first');
      if (!arg) return PAGINATED[field.name.value]!;
      return arg.value.kind === Kind.INT ? Number(arg.value.value) : MAX_PAGE_SIZE;
    };
    const rowsOf = (set: SelectionSetNode | undefined, seen: ReadonlySet<string>): number => {
      if (!set) return 0;
      let rows = 0;
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          rows += sel.name.value in PAGINATED ? pageOf(sel) : 0;
          rows += rowsOf(sel.selectionSet, seen);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          rows += rowsOf(sel.selectionSet, seen);
        } else {
          const frag = fragments.get(sel.name.value);
          if (frag && !seen.has(frag.name.value)) rows += rowsOf(frag.selectionSet, new Set([...seen, frag.name.value]));
        }
      }
      return rows;
    };
    return {
      OperationDefinition(node) {
        const rows = rowsOf(node.selectionSet, new Set());
        if (rows > max) {
          context.reportError(
            createGraphQLError(`query asks for up to ${rows} rows across its paginated fields; the limit is ${max}`, {
              nodes: [node],
              extensions: { code: ErrorCode.costLimitExceeded, max, rows },
            }),
          );
        }
      },
    };
  };
}
