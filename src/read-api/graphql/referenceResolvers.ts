/**
 * Reference data in the read API: referenceKinds, reference(…), seasonalFlights(…), and every
 * `…Info` field, resolved through one per-request batch loader keyed by (kind, code) — all the
 * info fields of one execution level are one statement, so a 2,000-flight board with every info
 * field stays a bounded number of statements.
 *
 * VIPL records are personal data: unless MSGX_EXPOSE_PERSONAL_DATA=true only kind, code and VRNK
 * are served (name, local name null; fields VPCD and VRNK).
 */
import { REFERENCE_KIND_LIST, REFERENCE_KINDS } from '../../domain/reference/kinds.ts';
import { publicFields } from '../../domain/reference/record.ts';
import type { ReadContext } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { badInput, requirePageSize } from './errors.ts';
import {
  countReference, countSeasonal, referenceKey, selectReferenceKinds, selectReferencePage, selectSeasonalPage,
  type ReferenceFilter, type ReferenceRow, type SeasonalFilter, type SeasonalKey, type SeasonalRow,
} from '../sql/selectReference.ts';

/** Which reference kind a list item's `info` names (set on the items by the Flight list resolvers). */
export const REF_KIND = Symbol('referenceKind');
export type Tagged<T> = T & { readonly [REF_KIND]?: string };

/** Allocation lists of a flight → the kind of their codes. */
export const ALLOCATION_KINDS: Readonly<Record<string, string>> = {
  stands: 'SLST', gates: 'GLST', counters: 'CLST', belts: 'BLST', chutes: 'CHLT',
};

/** Mark each item of an allocation list with the kind its `info` reads. */
export function tagAllocations(list: string, items: readonly object[]): readonly object[] {
  const kind = ALLOCATION_KINDS[list];
  if (kind === undefined) return items;
  return items.map((i) => ({ ...i, [REF_KIND]: kind }));
}

function withheld(kind: string, ctx: ReadContext): boolean {
  return REFERENCE_KINDS[kind]?.publicFields !== undefined && ctx.deps.exposePersonalData !== true;
}

/** `ReferenceRecord.name` / `nameLocal` / `fields` as served (VIPL withheld unless configured). */
export const recordName = (r: ReferenceRow, ctx: ReadContext): string | null => (withheld(r.kind, ctx) ? null : r.name);
export const recordNameLocal = (r: ReferenceRow, ctx: ReadContext): string | null => (withheld(r.kind, ctx) ? null : r.nameLocal);
export function recordFieldsText(r: ReferenceRow, ctx: ReadContext): string {
  const kind = REFERENCE_KINDS[r.kind];
  return JSON.stringify(kind && withheld(r.kind, ctx) ? publicFields(r.fields, kind) : r.fields);
}

/** The code an info field looks up: null when there is none (then the field is null without a lookup). */
export function infoCode(code: unknown): string | null {
  return typeof code === 'string' && code !== '' ? code : null;
}

function info(kind: string, code: unknown, ctx: ReadContext): Promise<ReferenceRow | null> | null {
  const c = infoCode(code);
  return c === null ? null : ctx.loaders.reference.load(referenceKey(kind, c));
}

/**
 * Every `…Info` field: per type and field, the reference kind its code names and the parent's
 * property that holds the code. ResourceAllocation's kind (null here) comes from its list
 * (ALLOCATION_KINDS). The resolvers below and the read API's fast path (lean/) both read this table.
 */
export const INFO_FIELDS: Readonly<Record<string, Readonly<Record<string, { readonly kind: string | null; readonly code: string }>>>> = {
  Flight: {
    airlineInfo: { kind: 'AIRL', code: 'airline' },
    aircraftTypeInfo: { kind: 'AIRC', code: 'aircraftType' },
    registrationInfo: { kind: 'REGN', code: 'registration' },
    statusInfo: { kind: 'STTS', code: 'status' },
    serviceTypeInfo: { kind: 'FLTL', code: 'serviceType' },
  },
  ResourceAllocation: { info: { kind: null, code: 'code' } },
  BridgeOperation: { info: { kind: 'ABDG', code: 'bridge' } },
  Delay: { info: { kind: 'DLYL', code: 'code' } },
  GroundService: { info: { kind: 'HLTR', code: 'code' } },
  RoutePoint: { info: { kind: 'ARPT', code: 'airport' } },
  Abnormal: { reasonInfo: { kind: 'ABNR', code: 'reason' } },
  VipGuest: { info: { kind: 'VIPL', code: 'code' } },
};

type InfoResolver = (p: Tagged<Record<string, unknown>>, _a: unknown, ctx: ReadContext) => Promise<ReferenceRow | null> | null;

const infoResolvers = Object.fromEntries(
  Object.entries(INFO_FIELDS).map(([type, fields]) => [
    type,
    Object.fromEntries(
      Object.entries(fields).map(([field, { kind, code }]): [string, InfoResolver] => [
        field,
        (p, _a, ctx) => {
          const k = kind ?? p[REF_KIND];
          return k === undefined ? null : info(k, p[code], ctx);
        },
      ]),
    ),
  ]),
);

interface ReferenceArgs {
  kind: string;
  code?: string | null;
  search?: string | null;
  first: number;
  after?: string | null;
}

interface SeasonalArgs {
  season?: string | null;
  airline?: string | null;
  flightNo?: string | null;
  operatesOn?: string | null;
  first: number;
  after?: string | null;
}

const REFERENCE_CURSOR = 'reference';
const SEASONAL_CURSOR = 'seasonalFlights';

function seasonalKey(r: SeasonalRow): SeasonalKey {
  return [r.airline ?? '', r.flightNo ?? '', r.direction ?? '', r.season, String(r.seq)];
}

export const referenceResolvers = {
  Query: {
    async referenceKinds(_: unknown, _a: unknown, ctx: ReadContext) {
      const counts = await selectReferenceKinds(ctx.deps.db);
      return REFERENCE_KIND_LIST.map((k) => {
        const c = counts.get(k.kind);
        return { kind: k.kind, description: k.description, count: c?.count ?? 0, lastUpdatedAt: c?.lastUpdatedAt ?? null, lastMsgId: c?.lastMsgId ?? null };
      });
    },

    async reference(_: unknown, args: ReferenceArgs, ctx: ReadContext) {
      const first = requirePageSize(args.first);
      const kind = args.kind.trim().toUpperCase();
      if (!Object.hasOwn(REFERENCE_KINDS, kind)) {
        throw badInput(`kind must be one of ${REFERENCE_KIND_LIST.map((k) => k.kind).join(', ')} (got ${JSON.stringify(args.kind)})`, 'kind');
      }
      const search = args.search == null || args.search === '' ? null : args.search;
      const filter: ReferenceFilter = { kind, code: args.code ?? null, search };
      let after: string | null = null;
      if (args.after != null) {
        const [cursorKind, code] = decodeCursor(REFERENCE_CURSOR, args.after, 2);
        if (cursorKind !== kind || code == null) throw badInput('after is not a cursor of this connection', 'after');
        after = code;
      }
      const rows = await selectReferencePage(ctx.deps.db, filter, after, first + 1);
      const edges = rows.slice(0, first).map((node) => ({ cursor: encodeCursor(REFERENCE_CURSOR, [node.kind, node.code]), node }));
      return {
        edges,
        pageInfo: { hasNextPage: rows.length > first, endCursor: edges.at(-1)?.cursor ?? null },
        totalCount: () => countReference(ctx.deps.db, filter),
      };
    },

    async seasonalFlights(_: unknown, args: SeasonalArgs, ctx: ReadContext) {
      const first = requirePageSize(args.first);
      const filter: SeasonalFilter = {
        season: args.season ?? null, airline: args.airline ?? null, flightNo: args.flightNo ?? null, operatesOn: args.operatesOn ?? null,
      };
      let after: SeasonalKey | null = null;
      if (args.after != null) {
        const key = decodeCursor(SEASONAL_CURSOR, args.after, 5);
        if (key.some((v) => v === null) || !/^\d{1,9}$/.test(key[4]!)) throw badInput('after is not a cursor of this connection', 'after');
        after = key as unknown as SeasonalKey;
      }
      const rows = await selectSeasonalPage(ctx.deps.db, filter, after, first + 1);
      const edges = rows.slice(0, first).map((node) => ({ cursor: encodeCursor(SEASONAL_CURSOR, seasonalKey(node)), node }));
      return {
        edges,
        pageInfo: { hasNextPage: rows.length > first, endCursor: edges.at(-1)?.cursor ?? null },
        totalCount: () => countSeasonal(ctx.deps.db, filter),
      };
    },
  },

  ReferenceRecord: {
    name: (r: ReferenceRow, _a: unknown, ctx: ReadContext) => recordName(r, ctx),
    nameLocal: (r: ReferenceRow, _a: unknown, ctx: ReadContext) => recordNameLocal(r, ctx),
    fields: (r: ReferenceRow, _a: unknown, ctx: ReadContext) => recordFieldsText(r, ctx),
  },

  SeasonalFlight: {
    direction: (s: SeasonalRow) => (s.direction === 'A' ? 'ARRIVAL' : s.direction === 'D' ? 'DEPARTURE' : null),
    linkedFlight: (s: SeasonalRow) =>
      s.linkedAirline === null && s.linkedFlightNo === null ? null : { airline: s.linkedAirline, flightNo: s.linkedFlightNo },
  },

  ...infoResolvers,
};
