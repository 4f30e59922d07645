/**
 * "Every field of a Flight, with all detail lists and every `…Info` field", derived from the
 * served schema (src/read-api/graphql/schema.graphql + reference.graphql) so the bench follows the
 * schema as it changes. Gives the GraphQL selection text for the msgx queries and the projection
 * the raw baseline server applies to the same FlightView, so both answer the same JSON.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import type { FlightState } from '../../src/domain/flight.ts';
import { toFlightView } from '../../src/domain/flightView.ts';
import { REFERENCE_KINDS } from '../../src/domain/reference/kinds.ts';
import { publicFields } from '../../src/domain/reference/record.ts';
import { ALLOCATION_KINDS, INFO_FIELDS } from '../../src/read-api/graphql/referenceResolvers.ts';
import { referenceKey, type ReferenceRow } from '../../src/read-api/sql/selectReference.ts';

export interface Field {
  readonly name: string;
  /** A DateTime leaf (rendered in the airport zone). */
  readonly instant: boolean;
  readonly sub?: readonly Field[];
  /** An `…Info` field: the kind (null: from the allocation list) and the parent property with the code. */
  readonly info?: { readonly kind: string | null; readonly code: string };
  /** Some field at or below this one is an info field. */
  readonly hasInfo: boolean;
}

const FILES = ['schema.graphql', 'reference.graphql'].map((f) => fileURLToPath(new URL(`../../src/read-api/graphql/${f}`, import.meta.url)));

/** Allocation list field → the kind of its codes (stands → SLST, checkInCounters → CLST, …). */
const ALLOCATION_FIELD_KINDS: Readonly<Record<string, string>> = {
  stands: ALLOCATION_KINDS.stands!, gates: ALLOCATION_KINDS.gates!, checkInCounters: ALLOCATION_KINDS.counters!,
  baggageBelts: ALLOCATION_KINDS.belts!, chutes: ALLOCATION_KINDS.chutes!,
};

function fieldsOf(type: GraphQLObjectType, allocationKind?: string): Field[] {
  return Object.values(type.getFields()).map((f) => {
    const named = getNamedType(f.type);
    const spec = INFO_FIELDS[type.name]?.[f.name];
    if (isObjectType(named)) {
      const sub = fieldsOf(named, ALLOCATION_FIELD_KINDS[f.name]);
      const info = spec ? { info: { kind: spec.kind ?? allocationKind ?? null, code: spec.code } } : {};
      return { name: f.name, instant: false, sub, ...info, hasInfo: spec !== undefined || sub.some((s) => s.hasInfo) };
    }
    return { name: f.name, instant: named.name === 'DateTime', hasInfo: false };
  });
}

let cached: readonly Field[] | undefined;

export function flightFields(): readonly Field[] {
  if (!cached) {
    const flight = buildSchema(FILES.map((f) => readFileSync(f, 'utf8')).join('\n')).getType('Flight');
    if (!flight || !isObjectType(flight)) throw new Error('schema.graphql has no type Flight');
    cached = fieldsOf(flight);
  }
  return cached;
}

export function selectionText(fields: readonly Field[] = flightFields()): string {
  return fields.map((f) => (f.sub ? `${f.name} { ${selectionText(f.sub)} }` : f.name)).join(' ');
}

const codeOf = (src: Record<string, unknown>, f: Field): string | null => {
  const code = src[f.info!.code];
  return f.info!.kind !== null && typeof code === 'string' && code !== '' ? code : null;
};

/** The reference keys (`kind \0 code`) the info fields of `value` name. */
function collectKeys(value: unknown, fields: readonly Field[], into: Set<string>): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) return void value.forEach((v) => collectKeys(v, fields, into));
  const src = value as Record<string, unknown>;
  for (const f of fields) {
    if (!f.hasInfo) continue;
    if (f.info) {
      const code = codeOf(src, f);
      if (code !== null) into.add(referenceKey(f.info.kind!, code));
    } else collectKeys(src[f.name], f.sub!, into);
  }
}

/** A reference record as msgx shows it: VIPL's personal fields withheld (the default). */
function shownRecord(r: ReferenceRow): Record<string, unknown> {
  const kind = REFERENCE_KINDS[r.kind];
  const withheld = kind?.publicFields !== undefined;
  return {
    ...r,
    name: withheld ? null : r.name,
    nameLocal: withheld ? null : r.nameLocal,
    fields: JSON.stringify(kind && withheld ? publicFields(r.fields, kind) : r.fields),
  };
}

function project(value: unknown, fields: readonly Field[], instant: (iso: string) => string, refs: ReadonlyMap<string, ReferenceRow>): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => project(v, fields, instant, refs));
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.info) {
      const code = codeOf(src, f);
      const row = code === null ? undefined : refs.get(referenceKey(f.info.kind!, code));
      out[f.name] = row ? project(shownRecord(row), f.sub!, instant, refs) : null;
      continue;
    }
    const v = src[f.name];
    if (f.sub) out[f.name] = project(v, f.sub, instant, refs);
    else if (f.instant && typeof v === 'string') out[f.name] = instant(v);
    else out[f.name] = v ?? null;
  }
  return out;
}

/** The Flight view of `state` (the raw server's rendering, before projection). */
export function flightView(state: FlightState): Record<string, unknown> {
  return { ...toFlightView(state), deletedReason: state.deletedReason };
}

/** The reference keys the views' info fields need. */
export function referenceKeysOf(views: readonly Record<string, unknown>[]): string[] {
  const keys = new Set<string>();
  for (const v of views) collectKeys(v, flightFields(), keys);
  return [...keys];
}

/** The JSON object msgx's `Flight` would answer for a view, given the reference records its info fields name. */
export function flightJson(view: Record<string, unknown>, instant: (iso: string) => string, refs: ReadonlyMap<string, ReferenceRow> = new Map()): unknown {
  return project(view, flightFields(), instant, refs);
}
