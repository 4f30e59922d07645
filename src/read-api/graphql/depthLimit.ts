import { createGraphQLError } from 'graphql-yoga';
import { Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';
import { ErrorCode } from './errors.ts';

export const MAX_QUERY_DEPTH = 10;

/**
 * Validation rule: refuses operations nested deeper than `max` fields (fragments followed;
 * introspection fields such as `__schema` are not counted, so GraphiQL keeps working).
 */
export function depthLimitRule(max: number = MAX_QUERY_DEPTH) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
    const depthOf = (set: SelectionSetNode | undefined, seen: ReadonlySet<string>): number => {
      if (!set) return 0;
      let deepest = 0;
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          if (sel.name.value.startsWith('__')) continue;
          deepest = Math.max(deepest, 1 + depthOf(sel.selectionSet, seen));
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(sel.selectionSet, seen));
        } else {
          const frag = fragments.get(sel.name.value);
          if (frag && !seen.has(frag.name.value)) deepest = Math.max(deepest, depthOf(frag.selectionSet, new Set([...seen, frag.name.value])));
        }
      }
      return deepest;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > max) {
          context.reportError(
            createGraphQLError(`query is nested ${depth} levels deep; the limit is ${max}`, {
              nodes: [node],
              extensions: { code: ErrorCode.depthLimitExceeded, max, depth },
            }),
          );
        }
      },
    };
  };
}
