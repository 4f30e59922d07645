/**
 * The read API's fast path, part 1: a query's selection compiled into a plan that the fast path
 * applies to flight documents (lean/leanRun.ts) without graphql-js's per-field execution.
 *
 * Only operations the fast path answers exactly as graphql-js would get a plan: a `query` whose
 * root fields are `flight` and `flights` only, every selected field below them either read from
 * the parent as graphql-js's default resolver would, or one of the fields whose resolvers the fast
 * path mirrors (the Flight detail lists, every `…Info` field, ReferenceRecord's withheld fields).
 * A field with any other resolver, arguments below the root, an abstract type, or a variable
 * that does not coerce gives no plan: graphql-js executes the operation as before. Fields are
 * collected by graphql-js's own collectFields (fragments, @skip/@include, merging by response
 * key), leaves serialized by the schema's own scalars and enums.
 */
import type {
  DocumentNode, FieldNode, FragmentDefinitionNode, GraphQLField, GraphQLObjectType, GraphQLSchema, OperationDefinitionNode,
} from 'graphql';
import { collectFields, collectSubfields, gql } from './graphqlRuntime.ts';
import { LIST_NAMES } from '../../domain/lists.ts';
import { listField } from '../../domain/flightView.ts';
import type { ListName } from '../../domain/flight.ts';
import { ALLOCATION_KINDS, INFO_FIELDS } from '../graphql/referenceResolvers.ts';

export interface FieldPlan {
  /** Response key (alias or field name). */
  readonly key: string;
  /** `"key":` as JSON text (a response key is a GraphQL name: nothing to escape). */
  readonly keyText: string;
  /** This field is an `…Info` field or has one below it. */
  readonly hasInfo: boolean;
  readonly name: string;
  readonly nonNull: boolean;
  /** The field is a list ([T] or [T!]); null: a single value. */
  readonly list: { readonly itemNonNull: boolean } | null;
  /** `__typename` (of the parent, `typeName`). */
  readonly typename?: string;
  /** A leaf: the schema's serializer. */
  readonly serialize?: (value: unknown) => unknown;
  /** An object: its type and its own plan. */
  readonly object?: { readonly typeName: string; readonly fields: readonly FieldPlan[] };
  /** An `…Info` field: the kind looked up (null: never any, the field is null) and the parent property holding the code. */
  readonly info?: { readonly kind: string | null; readonly code: string };
  /** The field's first node and (root fields) its definition, for its arguments. */
  readonly node: FieldNode;
  readonly def?: GraphQLField<unknown, unknown>;
}

export interface LeanPlan {
  readonly operation: OperationDefinitionNode;
  readonly variables: Record<string, unknown>;
  readonly root: readonly FieldPlan[];
}

const ROOT_FIELDS = new Set(['flight', 'flights']);

/** Allocation list field (stands, checkInCounters, …) → the reference kind of its codes. */
const ALLOCATION_FIELD_KINDS: ReadonlyMap<string, string> = new Map(
  Object.entries(ALLOCATION_KINDS).map(([list, kind]) => [listField(list as ListName), kind]),
);

/** Resolvers the fast path mirrors: type → fields. */
const MIRRORED: Readonly<Record<string, ReadonlySet<string>>> = {
  Query: ROOT_FIELDS,
  Flight: new Set([...LIST_NAMES.map((l) => listField(l)), ...Object.keys(INFO_FIELDS.Flight ?? {})]),
  ReferenceRecord: new Set(['name', 'nameLocal', 'fields']),
  ...Object.fromEntries(Object.entries(INFO_FIELDS).filter(([t]) => t !== 'Flight').map(([t, fields]) => [t, new Set(Object.keys(fields))])),
};

function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  if (operationName != null) return ops.find((o) => o.name?.value === operationName);
  return ops.length === 1 ? ops[0] : undefined;
}

interface Compile {
  readonly schema: GraphQLSchema;
  readonly fragments: Record<string, FragmentDefinitionNode>;
  readonly variables: Record<string, unknown>;
}

const { getNullableType, getVariableValues, isLeafType, isListType, isNonNullType, isObjectType } = gql;

/** The plan of the fields `fields` (response key → nodes) of `type`; null when the fast path cannot answer them. */
function planFields(c: Compile, type: GraphQLObjectType, fields: Map<string, readonly FieldNode[]>, root: boolean, allocationKind?: string): FieldPlan[] | null {
  const out: FieldPlan[] = [];
  for (const [key, nodes] of fields) {
    const node = nodes[0]!;
    const name = node.name.value;
    if (name === '__typename') {
      out.push({ key, keyText: `"${key}":`, hasInfo: false, name, nonNull: true, list: null, typename: type.name, node });
      continue;
    }
    const def = type.getFields()[name];
    if (def === undefined) return null;
    if (def.resolve !== undefined && !MIRRORED[type.name]?.has(name)) return null;
    if (!root && def.args.length > 0) return null;
    if (root && !ROOT_FIELDS.has(name)) return null;
    const nonNull = isNonNullType(def.type);
    let t = getNullableType(def.type);
    let list: FieldPlan['list'] = null;
    if (isListType(t)) {
      list = { itemNonNull: isNonNullType(t.ofType) };
      t = getNullableType(t.ofType);
      if (isListType(t)) return null;
    }
    const infoSpec = INFO_FIELDS[type.name]?.[name];
    if (isLeafType(t)) {
      const leaf = t;
      out.push({ key, keyText: `"${key}":`, hasInfo: false, name, nonNull, list, serialize: (v) => leaf.serialize(v), node, ...(root ? { def } : {}) });
    } else if (isObjectType(t)) {
      const sub = planFields(c, t, collectSubfields(c.schema, c.fragments, c.variables, t, nodes), false, ALLOCATION_FIELD_KINDS.get(name));
      if (sub === null) return null;
      const object = { typeName: t.name, fields: sub };
      const info = infoSpec ? { kind: infoSpec.kind ?? allocationKind ?? null, code: infoSpec.code } : undefined;
      const hasInfo = info !== undefined || sub.some((f) => f.hasInfo);
      out.push({ key, keyText: `"${key}":`, hasInfo, name, nonNull, list, object, node, ...(info ? { info } : {}), ...(root ? { def } : {}) });
    } else {
      return null;
    }
  }
  return out;
}

/**
 * Plans by document (yoga hands the same parsed document for the same query text) and operation
 * name. Only documents without directives are kept: their plan does not depend on the variables
 * (@skip/@include would). Arguments are read per request.
 */
const plans = new WeakMap<DocumentNode, Map<string, Omit<LeanPlan, 'variables'> | null>>();

const hasDirectives = (document: DocumentNode): boolean => /@/.test(document.loc?.source.body ?? '@');

/** The plan of an operation, or null: graphql-js executes it. */
export function leanPlan(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Readonly<Record<string, unknown>> | null | undefined,
): LeanPlan | null {
  if (hasDirectives(document)) return compile(schema, document, operationName, rawVariables);
  let byName = plans.get(document);
  if (!byName) plans.set(document, (byName = new Map()));
  const name = operationName ?? '';
  let cached = byName.get(name);
  if (cached === undefined) {
    const plan = compile(schema, document, operationName, rawVariables);
    // A plan that failed on this request's variables may hold for another's: not cached.
    if (plan === null && !variablesCoerce(schema, document, operationName, rawVariables)) return null;
    byName.set(name, (cached = plan && { operation: plan.operation, root: plan.root }));
  }
  if (cached === null) return null;
  const coerced = gql.getVariableValues(schema, cached.operation.variableDefinitions ?? [], rawVariables ?? {});
  return coerced.errors ? null : { ...cached, variables: coerced.coerced };
}

function variablesCoerce(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Readonly<Record<string, unknown>> | null | undefined,
): boolean {
  const operation = operationOf(document, operationName);
  return operation !== undefined && !getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {}).errors;
}

function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Readonly<Record<string, unknown>> | null | undefined,
): LeanPlan | null {
  const operation = operationOf(document, operationName);
  const queryType = schema.getQueryType();
  if (operation?.operation !== 'query' || !queryType) return null;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (coerced.errors) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === 'FragmentDefinition') fragments[d.name.value] = d;
  const c: Compile = { schema, fragments, variables: coerced.coerced };
  const root = planFields(c, queryType, collectFields(schema, fragments, c.variables, queryType, operation.selectionSet), true);
  return root === null ? null : { operation, variables: c.variables, root };
}
