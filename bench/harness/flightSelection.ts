/**
 * "Every field of a Flight, with all detail lists", derived from the served schema
 * (src/read-api/graphql/schema.graphql) so the bench follows the schema as it changes. Gives the
 * GraphQL selection text for the msgx queries and the projection the raw baseline server applies
 * to the same FlightView, so both answer the same JSON.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import type { FlightState } from '../../src/domain/flight.ts';
import { toFlightView } from '../../src/domain/flightView.ts';

export interface Field {
  readonly name: string;
  /** A DateTime leaf (rendered in the airport zone). */
  readonly instant: boolean;
  readonly sub?: readonly Field[];
}

const SCHEMA_FILE = fileURLToPath(new URL('../../src/read-api/graphql/schema.graphql', import.meta.url));

function fieldsOf(type: GraphQLObjectType): Field[] {
  return Object.values(type.getFields()).map((f) => {
    const named = getNamedType(f.type);
    if (isObjectType(named)) return { name: f.name, instant: false, sub: fieldsOf(named) };
    return { name: f.name, instant: named.name === 'DateTime' };
  });
}

let cached: readonly Field[] | undefined;

export function flightFields(): readonly Field[] {
  if (!cached) {
    const flight = buildSchema(readFileSync(SCHEMA_FILE, 'utf8')).getType('Flight');
    if (!flight || !isObjectType(flight)) throw new Error('schema.graphql has no type Flight');
    cached = fieldsOf(flight);
  }
  return cached;
}

export function selectionText(fields: readonly Field[] = flightFields()): string {
  return fields.map((f) => (f.sub ? `${f.name} { ${selectionText(f.sub)} }` : f.name)).join(' ');
}

function project(value: unknown, fields: readonly Field[], instant: (iso: string) => string): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => project(v, fields, instant));
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = src[f.name];
    if (f.sub) out[f.name] = project(v, f.sub, instant);
    else if (f.instant && typeof v === 'string') out[f.name] = instant(v);
    else out[f.name] = v ?? null;
  }
  return out;
}

/** The JSON object msgx's `Flight` would answer for `state` (the raw server's rendering). */
export function flightJson(state: FlightState, instant: (iso: string) => string): unknown {
  const view = { ...toFlightView(state), deletedReason: state.deletedReason };
  return project(view, flightFields(), instant);
}
