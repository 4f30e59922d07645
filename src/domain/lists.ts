/**
 * The flight's detail lists: their names, their canonical order (allocations, bridges, chocks
 * and route points by seq; delays and services by (start, code)), and value equality.
 */
import type { FlightLists, Instant, ListName } from './flight.ts';

export const LIST_NAMES = [
  'stands', 'gates', 'counters', 'belts', 'chutes', 'bridges', 'chocks', 'delays', 'services', 'route', 'adjacent',
] as const satisfies readonly ListName[];

export function emptyLists(): FlightLists {
  return {
    stands: [], gates: [], counters: [], belts: [], chutes: [],
    bridges: [], chocks: [], delays: [], services: [], route: [], adjacent: [],
  };
}

/** Instants compare as ISO strings; a missing start sorts last. */
function compareStart(a: Instant | null, b: Instant | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

const byCode = (a: { code: string }, b: { code: string }): number => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);

/** A copy of `items` in the list's canonical order (stable for ties). */
export function orderList<K extends ListName>(list: K, items: FlightLists[K]): FlightLists[K] {
  const copy = [...items] as FlightLists[K];
  switch (list) {
    case 'delays':
    case 'services': {
      const timed = copy as { start: Instant | null; code: string }[];
      timed.sort((a, b) => compareStart(a.start, b.start) || byCode(a, b));
      return copy;
    }
    default: {
      (copy as { seq: number }[]).sort((a, b) => a.seq - b.seq);
      return copy;
    }
  }
}

/** Structural equality of JSON-like values (key order ignored: values may come back from jsonb). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) {
    if (!sameValue(ra[k] ?? null, rb[k] ?? null)) return false;
  }
  return true;
}

/** Fresh copies of list items (items are flat records of primitives), so no two states share one. */
export function copyItems<T extends object>(items: readonly T[]): T[] {
  return items.map((item) => ({ ...item }));
}

export function copyLists(lists: FlightLists): FlightLists {
  const out = emptyLists();
  for (const name of LIST_NAMES) (out as Record<ListName, object[]>)[name] = copyItems<object>(lists[name] ?? []);
  return out;
}
