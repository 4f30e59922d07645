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

interface PendingInfo {
  readonly into: Obj;
  readonly plan: FieldPlan;
  readonly refKey: string;
}

class Shaper {
  readonly pending: PendingInfo[] = [];

  value(p: FieldPlan, v: unknown): unknown {
    if (v === null || v === undefined) {
      if (p.nonNull) throw new NotLean(`null at non-null ${p.name}`);
      return null;
    }
    if (p.list === null) return this.item(p, v);
    if (!Array.isArray(v)) throw new NotLean(`${p.name} is not a list`);
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x === null || x === undefined) {
        if (p.list.itemNonNull) throw new NotLean(`null item in ${p.name}`);
        out[i] = null;
      } else {
        out[i] = this.item(p, x);
      }
    }
    return out;
  }

  private item(p: FieldPlan, x: unknown): unknown {
    if (p.serialize) {
      const s = p.serialize(x);
      if (s === undefined) throw new NotLean(`${p.name} did not serialize`);
      return s;
    }
    return this.object(p.object!.fields, x as Obj);
  }

  object(fields: readonly FieldPlan[], src: Obj): Obj {
    const out: Obj = {};
    for (const f of fields) {
      if (f.typename !== undefined) out[f.key] = f.typename;
      else if (f.info) {
        out[f.key] = null;
        const code = infoCode(src[f.info.code]);
        if (f.info.kind !== null && code !== null) this.pending.push({ into: out, plan: f, refKey: referenceKey(f.info.kind, code) });
      } else {
        const v = src[f.name];
        if (typeof v === 'function') throw new NotLean(`${f.name} is computed`);
        out[f.key] = this.value(f, v);
      }
    }
    return out;
  }

  /** Every pending info field: one statement for all their records. */
  async infos(ctx: ReadContext): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = await selectReferenceByKeys(ctx.deps.db, [...new Set(this.pending.map((p) => p.refKey))]);
    const served = new Map<string, Obj>();
    const shaped = new Map<FieldPlan, Map<string, unknown>>();
    for (const p of this.pending) {
      const row = rows.get(p.refKey);
      if (row === undefined) continue;
      let byKey = shaped.get(p.plan);
      if (!byKey) shaped.set(p.plan, (byKey = new Map()));
      let v = byKey.get(p.refKey);
      if (v === undefined) {
        let s = served.get(p.refKey);
        if (!s) served.set(p.refKey, (s = servedRecord(row, ctx)));
        byKey.set(p.refKey, (v = this.item(p.plan, s)));
      }
      p.into[p.plan.key] = v;
    }
  }
}

/** A ReferenceRecord as its resolvers show it (VIPL withheld unless configured). */
function servedRecord(row: ReferenceRow, ctx: ReadContext): Obj {
  return { ...row, name: recordName(row, ctx), nameLocal: recordNameLocal(row, ctx), fields: recordFieldsText(row, ctx) };
}

async function rootValue(p: FieldPlan, plan: LeanPlan, ctx: ReadContext, shaper: Shaper): Promise<unknown> {
  const args = gql.getArgumentValues(p.def!, p.node, plan.variables);
  if (p.name === 'flight') {
    const flid = requireInt64(args.flid as string, 'flid');
    const asOf = args.asOf as string | null | undefined;
    const doc = asOf != null ? await flightAsOf(ctx.deps.db, flid, asOf).then((s) => (s ? flightDoc(s) : null)) : await flightDocById(ctx, flid);
    return shaper.value(p, doc);
  }
  const { first, filter, after } = boardQuery(args as unknown as FlightsArgs);
  const docs = await boardDocs(ctx, filter, after, first + 1);
  const edges = docs.slice(0, first).map((node) => ({ cursor: boardCursor(node), node }));
  const connection: Obj = { edges, pageInfo: { hasNextPage: docs.length > first, endCursor: edges.at(-1)?.cursor ?? null } };
  if (p.object!.fields.some((f) => f.name === 'totalCount')) connection.totalCount = await countBoard(ctx.deps.db, filter);
  return shaper.value(p, connection);
}

/** The `data` of the operation, as graphql-js would answer it. */
export async function runLean(plan: LeanPlan, ctx: ReadContext): Promise<Obj> {
  const shaper = new Shaper();
  const data: Obj = {};
  for (const p of plan.root) data[p.key] = p.typename ?? null;
  const values = await Promise.all(plan.root.map((p) => (p.typename !== undefined ? p.typename : rootValue(p, plan, ctx, shaper))));
  plan.root.forEach((p, i) => (data[p.key] = values[i]));
  await shaper.infos(ctx);
  return data;
}
