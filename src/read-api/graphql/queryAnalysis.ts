import {
  Kind,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { MAX_PAGE_SIZE } from './errors.ts';

/**
 * One pass over an operation that measures what the limits of depthLimit.ts and costLimit.ts need:
 * nesting depth, rows asked for, a weighted cost, aliases, introspection nesting and every `first`
 * literal that is out of range. Fragments are measured once each and reused wherever they are
 * spread (memoised), so a tree of fragments that expands to millions of fields costs as many steps
 * as it has AST nodes: linear in the size of the document, not of its expansion.
 *
 * Literal `@skip(if: true)` / `@include(if: false)` selections are not counted (they never run);
 * a directive with a variable counts as included. A `first` literal is checked even on a skipped
 * field: a negative page size is refused, never subtracted.
 */
export interface QuerySummary {
  /** deepest field nesting outside introspection */
  readonly depth: number;
  /** rows asked for across paginated fields (`first`, default 100, a variable counts as MAX_PAGE_SIZE) */
  readonly rows: number;
  /** weighted cost: rows, list fields per parent, costly scalars (see FIELD_WEIGHTS) */
  readonly cost: number;
  /** aliased fields in the expanded operation */
  readonly aliases: number;
  /** deepest field nesting inside `__schema` / `__type` */
  readonly introspectionDepth: number;
  /** deepest nesting of introspection list fields (types › fields › args is 3) */
  readonly introspectionLists: number;
  /** `first` literals out of range, as `value` (field name) */
  readonly badFirst: readonly { field: string; value: string }[];
}

/** Paginated fields and their default page size (graphql.md). */
export const PAGINATED: Readonly<Record<string, number>> = { flights: 100, flightHistory: 100, reference: 100, seasonalFlights: 100, messagesInState: 100 };
/** Paginated fields that are plain lists (no connection): what they select is paid per row. */
const PLAIN_PAGES = new Set(['messagesInState']);

/**
 * Per-instance weight of fields whose resolution is dearer than a column: the raw XML (up to
 * 16 MiB each), the identity key (META checked again), a fold of the log (`flight(asOf:)`), the pipeline
 * counts, a decision's whole payload (a plan snapshot can name thousands of flights), a count.
 */
export const FIELD_WEIGHTS: Readonly<Record<string, number>> = {
  rawXml: 500,
  identityKey: 50,
  message: 20,
  pipeline: 200,
  payload: 5,
  totalCount: 10,
  deliveries: 5,
};
/** `flight(flid, asOf)` folds the decision log for one flight. */
export const FLIGHT_AS_OF_WEIGHT = 200;
/** Lists the paginated field already counted (one edge per row). */
const ROW_LISTS = new Set(['edges']);
const INTROSPECTION_LISTS = new Set(['types', 'fields', 'args', 'inputFields', 'enumValues', 'interfaces', 'possibleTypes', 'directives', 'locations']);

interface Acc {
  depth: number;
  rows: number;
  cost: number;
  /** cost under a connection's `edges`: paid once per row by the paginated field above */
  perRow: number;
  aliases: number;
  introspectionDepth: number;
  introspectionLists: number;
}

const ZERO: Acc = { depth: 0, rows: 0, cost: 0, perRow: 0, aliases: 0, introspectionDepth: 0, introspectionLists: 0 };

const cache = new WeakMap<DocumentNode, WeakMap<OperationDefinitionNode, QuerySummary>>();

export function analyseOperation(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): QuerySummary {
  let perDoc = cache.get(document);
  if (!perDoc) cache.set(document, (perDoc = new WeakMap()));
  const hit = perDoc.get(operation);
  if (hit) return hit;

  const listFields = listFieldNames(schema);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const badFirst: { field: string; value: string }[] = [];
  const checkedFirst = new WeakSet<FieldNode>();
  // Two memos per fragment: measured inside or outside introspection.
  const memo = new Map<string, Acc>();
  const inProgress = new Set<string>();

  const measureSet = (set: SelectionSetNode | undefined, intro: boolean): Acc => {
    if (!set) return ZERO;
    const acc: Acc = { ...ZERO };
    for (const sel of set.selections) {
      const skipped = isSkipped(sel.directives);
      let part: Acc;
      if (sel.kind === Kind.FIELD) {
        part = measureField(sel, intro, skipped);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        part = measureSet(sel.selectionSet, intro);
      } else {
        part = measureFragment(sel.name.value, intro);
      }
      if (skipped) continue;
      acc.depth = Math.max(acc.depth, part.depth);
      acc.introspectionDepth = Math.max(acc.introspectionDepth, part.introspectionDepth);
      acc.introspectionLists = Math.max(acc.introspectionLists, part.introspectionLists);
      acc.rows += part.rows;
      acc.cost += part.cost;
      acc.perRow += part.perRow;
      acc.aliases += part.aliases;
    }
    return acc;
  };

  const measureFragment = (name: string, intro: boolean): Acc => {
    const key = `${intro ? 'i' : 'o'}:${name}`;
    const known = memo.get(key);
    if (known) return known;
    const frag = fragments.get(name);
    if (!frag || inProgress.has(key)) return ZERO; // unknown or cyclic: graphql's own rules report it
    inProgress.add(key);
    const acc = measureSet(frag.selectionSet, intro);
    inProgress.delete(key);
    memo.set(key, acc);
    return acc;
  };

  const measureField = (field: FieldNode, intro: boolean, skipped: boolean): Acc => {
    const name = field.name.value;
    const alias = field.alias ? 1 : 0;
    if (name === '__typename') return { ...ZERO, aliases: alias };
    if (intro || name === '__schema' || name === '__type') {
      const child = measureSet(field.selectionSet, true);
      const isList = INTROSPECTION_LISTS.has(name) ? 1 : 0;
      return {
        ...ZERO,
        aliases: alias + child.aliases,
        introspectionDepth: 1 + child.introspectionDepth,
        introspectionLists: isList + child.introspectionLists,
        cost: 1 + child.cost,
      };
    }
    const child = measureSet(field.selectionSet, false);
    const base = { depth: 1 + child.depth, aliases: alias + child.aliases, introspectionDepth: 0, introspectionLists: 0 };
    if (ROW_LISTS.has(name)) {
      // a connection's rows: what is asked per edge is paid per row by the paginated field
      return { ...base, rows: child.rows, cost: 0, perRow: child.perRow + child.cost };
    }
    let own = FIELD_WEIGHTS[name] ?? 0;
    if (name in PAGINATED) {
      const page = pageOf(field, skipped);
      const perRow = PLAIN_PAGES.has(name) ? child.cost + child.perRow : child.perRow;
      const connection = PLAIN_PAGES.has(name) ? 0 : child.cost; // totalCount, pageInfo: once per connection
      return { ...base, rows: page + child.rows, cost: own + page + connection + page * perRow, perRow: 0 };
    }
    if (listFields.has(name)) own += 1;
    if (name === 'flight' && field.arguments?.some((a) => a.name.value === 'asOf')) own += FLIGHT_AS_OF_WEIGHT;
    return { ...base, rows: child.rows, cost: own + child.cost, perRow: child.perRow };
  };

  const pageOf = (field: FieldNode, skipped: boolean): number => {
    const arg = field.arguments?.find((a) => a.name.value === 'first');
    if (!arg) return PAGINATED[field.name.value]!;
    if (arg.value.kind === Kind.VARIABLE) return MAX_PAGE_SIZE; // checked again when it runs
    const literal = arg.value.kind === Kind.INT ? Number(arg.value.value) : NaN;
    const ok = Number.isSafeInteger(literal) && literal >= 0 && literal <= MAX_PAGE_SIZE;
    if (!ok && !checkedFirst.has(field)) {
      checkedFirst.add(field);
      badFirst.push({ field: field.alias?.value ?? field.name.value, value: arg.value.kind === Kind.INT ? arg.value.value : arg.value.kind });
    }
    if (skipped) return 0;
    return ok ? literal : MAX_PAGE_SIZE;
  };

  const acc = measureSet(operation.selectionSet, false);
  const summary: QuerySummary = { ...acc, badFirst };
  perDoc.set(operation, summary);
  return summary;
}

function isSkipped(directives: readonly DirectiveNode[] | undefined): boolean {
  if (!directives) return false;
  for (const d of directives) {
    const arg = d.arguments?.find((a) => a.name.value === 'if');
    if (!arg || arg.value.kind !== Kind.BOOLEAN) continue; // a variable: counted as included
    if (d.name.value === 'skip' && arg.value.value) return true;
    if (d.name.value === 'include' && !arg.value.value) return true;
  }
  return false;
}

const listCache = new WeakMap<GraphQLSchema, ReadonlySet<string>>();

/** Names of the schema's list-typed fields (field names are unique enough in this schema). */
function listFieldNames(schema: GraphQLSchema): ReadonlySet<string> {
  const known = listCache.get(schema);
  if (known) return known;
  const names = new Set<string>();
  // Duck-typed on purpose: the schema may come from another copy of `graphql` (yoga's), where
  // graphql's instanceof-based isObjectType/isListType would throw.
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !('getFields' in type) || 'parseValue' in type) continue;
    for (const f of Object.values((type as { getFields(): Record<string, { name: string; type: unknown }> }).getFields())) {
      if (String(f.type).replace(/!$/, '').startsWith('[')) names.add(f.name);
    }
  }
  listCache.set(schema, names);
  return names;
}
