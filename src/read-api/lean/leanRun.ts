/**
 * The read API's fast path, part 2: a plan (leanPlan.ts) applied to flight documents. Root fields
 * read documents (one statement for a board page or a flight) and check their arguments as the
 * normal resolvers do (the same functions); every `…Info` field of the whole answer is one
 * reference statement after the documents are shaped. Where graphql-js would report an error (a
 * null in a non-null place, a value its scalar refuses, a bad argument) the fast path gives up with
 * NotLean or the argument's error, and the plugin lets graphql-js execute the operation instead.
 */
import { gql } from './graphqlRuntime.ts';
import { flightDoc } from '../../readModel/flightDoc.ts';
import { flightAsOf } from '../asOf/flightAsOf.ts';
import type { ReadContext } from '../graphql/context.ts';
import { requireInt64 } from '../graphql/errors.ts';
import { boardCursor, boardQuery, type FlightsArgs } from '../graphql/flightQueries.ts';
import { infoCode, recordFieldsText, recordName, recordNameLocal } from '../graphql/referenceResolvers.ts';
import { countBoard } from '../sql/selectBoard.ts';
import { referenceKey, selectReferenceByKeys, type ReferenceRow } from '../sql/selectReference.ts';
import { boardDocs, flightDocById } from './flightDocs.ts';
import type { FieldPlan, LeanPlan } from './leanPlan.ts';

/** The fast path cannot give graphql-js's answer here: execute normally. */
export class NotLean extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NotLean';
  }
}

type Obj = Record<string, unknown>;

/** Characters JSON.stringify escapes in a string (lone surrogates included). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** A serialized leaf as JSON.stringify writes it. */
function leafText(v: unknown): string {
  if (typeof v === 'string') return NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`;
  const text = JSON.stringify(v);
  if (text === undefined) throw new NotLean('a leaf JSON cannot show');
  return text;
}

/** The reference keys (`kind \0 code`) that the info fields below `p` name in `v`. */
function collectInfo(p: FieldPlan, v: unknown, into: Set<string>): void {
  if (v === null || v === undefined || !p.object) return;
  const items = p.list !== null && Array.isArray(v) ? v : [v];
  for (const x of items) {
    if (x === null || typeof x !== 'object') continue;
    const src = x as Obj;
    for (const f of p.object.fields) {
      if (!f.hasInfo) continue;
      if (f.info) {
        const code = infoCode(src[f.info.code]);
        if (f.info.kind !== null && code !== null) into.add(referenceKey(f.info.kind, code));
      } else {
        collectInfo(f, src[f.name], into);
      }
    }
  }
}

/**
 * The answer as JSON text, written straight from the plan: the text JSON.stringify would give for
 * the object graphql-js builds (same keys, same order, same leaf values), without building it.
 */
class TextShaper {
  private readonly shaped = new Map<FieldPlan, Map<string, string>>();

  constructor(
    private readonly records: ReadonlyMap<string, ReferenceRow>,
    private readonly ctx: ReadContext,
  ) {}

  value(p: FieldPlan, v: unknown): string {
    if (v === null || v === undefined) {
      if (p.nonNull) throw new NotLean(`null at non-null ${p.name}`);
      return 'null';
    }
    if (p.list === null) return this.item(p, v);
    if (!Array.isArray(v)) throw new NotLean(`${p.name} is not a list`);
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (i > 0) out += ',';
      if (x === null || x === undefined) {
        if (p.list.itemNonNull) throw new NotLean(`null item in ${p.name}`);
        out += 'null';
      } else {
        out += this.item(p, x);
      }
    }
    return out + ']';
  }

  private item(p: FieldPlan, x: unknown): string {
    if (p.serialize) {
      const s = p.serialize(x);
      if (s === undefined || s === null) throw new NotLean(`${p.name} did not serialize`);
      return leafText(s);
    }
    return this.object(p.object!.fields, x as Obj);
  }

  private object(fields: readonly FieldPlan[], src: Obj): string {
    let out = '{';
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      out += i === 0 ? f.keyText : `,${f.keyText}`;
      if (f.typename !== undefined) out += `"${f.typename}"`;
      else if (f.info) out += this.info(f, src);
      else {
        const v = src[f.name];
        if (typeof v === 'function') throw new NotLean(`${f.name} is computed`);
        out += this.value(f, v);
      }
    }
    return out + '}';
  }

  private info(f: FieldPlan, src: Obj): string {
    const code = infoCode(src[f.info!.code]);
    if (f.info!.kind === null || code === null) return 'null';
    const refKey = referenceKey(f.info!.kind, code);
    const row = this.records.get(refKey);
    if (row === undefined) return 'null';
    let byKey = this.shaped.get(f);
    if (!byKey) this.shaped.set(f, (byKey = new Map()));
    let text = byKey.get(refKey);
    if (text === undefined) byKey.set(refKey, (text = this.item(f, servedRecord(row, this.ctx))));
    return text;
  }
}

/** A ReferenceRecord as its resolvers show it (VIPL withheld unless configured). */
function servedRecord(row: ReferenceRow, ctx: ReadContext): Obj {
  return { ...row, name: recordName(row, ctx), nameLocal: recordNameLocal(row, ctx), fields: recordFieldsText(row, ctx) };
}

/** What a root field resolves to: a flight document (or null), or a board connection. */
async function rootSource(p: FieldPlan, plan: LeanPlan, ctx: ReadContext): Promise<unknown> {
  const args = gql.getArgumentValues(p.def!, p.node, plan.variables);
  if (p.name === 'flight') {
    const flid = requireInt64(args.flid as string, 'flid');
    const asOf = args.asOf as string | null | undefined;
    return asOf != null ? await flightAsOf(ctx.deps.db, flid, asOf).then((s) => (s ? flightDoc(s) : null)) : await flightDocById(ctx, flid);
  }
  const { first, filter, after } = boardQuery(args as unknown as FlightsArgs);
  const docs = await boardDocs(ctx, filter, after, first + 1);
  const edges = docs.slice(0, first).map((node) => ({ cursor: boardCursor(node), node }));
  const connection: Obj = { edges, pageInfo: { hasNextPage: docs.length > first, endCursor: edges.at(-1)?.cursor ?? null } };
  if (p.object!.fields.some((f) => f.name === 'totalCount')) connection.totalCount = await countBoard(ctx.deps.db, filter);
  return connection;
}

/** The operation's answer (`{"data":…}`) as JSON text, as graphql-js would answer it. */
export async function runLean(plan: LeanPlan, ctx: ReadContext): Promise<string> {
  const sources = await Promise.all(plan.root.map((p) => (p.typename !== undefined ? p.typename : rootSource(p, plan, ctx))));
  const keys = new Set<string>();
  plan.root.forEach((p, i) => p.hasInfo && collectInfo(p, sources[i], keys));
  const records = keys.size > 0 ? await selectReferenceByKeys(ctx.deps.db, [...keys]) : new Map<string, ReferenceRow>();
  const shaper = new TextShaper(records, ctx);
  let text = '{"data":{';
  plan.root.forEach((p, i) => {
    text += (i === 0 ? '' : ',') + p.keyText + (p.typename !== undefined ? `"${p.typename}"` : shaper.value(p, sources[i]));
  });
  return `${text}}}`;
}
