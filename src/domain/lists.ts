/**
 * The flight's detail lists: their names, their canonical order (allocations, bridges, chocks
 * and route points by seq; delays and services by (start, code)), and value equality.
 */
import type { FlightLists, Instant, ListName } from './flight.ts';

export const LIST_NAMES = [
  'stands', 'gates', 'counters', 'belts', 'chutes', 'bridges', 'chocks', 'delays', 'services', 'route', 'adjacent',
  'vipGuests', 'pushbacks', 'tows',
] as const satisfies readonly ListName[];

/** All lists, from a patch: an absent list is empty. The arrays are the patch's (not copied). */
export function listsOf(p: Partial<FlightLists>): FlightLists {
  // One literal (not a spread over emptyLists()): see fieldsOf in fields.ts.
  return {
    stands: p.stands ?? [], gates: p.gates ?? [], counters: p.counters ?? [], belts: p.belts ?? [], chutes: p.chutes ?? [],
    bridges: p.bridges ?? [], chocks: p.chocks ?? [], delays: p.delays ?? [], services: p.services ?? [],
    route: p.route ?? [], adjacent: p.adjacent ?? [],
    vipGuests: p.vipGuests ?? [], pushbacks: p.pushbacks ?? [], tows: p.tows ?? [],
  };
}

export function emptyLists(): FlightLists {
  return listsOf({});
}

/** Instants compare as ISO strings; a missing start sorts last. */
function compareStart(a: Instant | null, b: Instant | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

const byCode = (a: { code: string }, b: { code: string }): number => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
const byStartThenCode = (a: { start: Instant | null; code: string }, b: { start: Instant | null; code: string }): number =>
  compareStart(a.start, b.start) || byCode(a, b);
const bySeq = (a: { seq: number }, b: { seq: number }): number => a.seq - b.seq;

function comparatorOf(list: ListName): (a: never, b: never) => number {
  return list === 'delays' || list === 'services' ? byStartThenCode : bySeq;
}

/**
 * `items` put in the list's canonical order in place (stable for ties) and returned. Lists
 * usually arrive in order already; then nothing is sorted.
 */
export function sortListInPlace<K extends ListName>(list: K, items: FlightLists[K]): FlightLists[K] {
  const compare = comparatorOf(list) as (a: unknown, b: unknown) => number;
  const xs = items as unknown[];
  for (let i = 1; i < xs.length; i++) {
    if (compare(xs[i - 1], xs[i]) > 0) {
      xs.sort(compare);
      break;
    }
  }
  return items;
}

/** A copy of `items` in the list's canonical order (stable for ties). */
export function orderList<K extends ListName>(list: K, items: FlightLists[K]): FlightLists[K] {
  return sortListInPlace(list, [...items] as FlightLists[K]);
}

/** `items` itself when it is in the list's canonical order already (the usual case), else an ordered copy. */
export function inListOrder<K extends ListName>(list: K, items: FlightLists[K]): FlightLists[K] {
  const compare = comparatorOf(list) as (a: unknown, b: unknown) => number;
  const xs = items as readonly unknown[];
  for (let i = 1; i < xs.length; i++) if (compare(xs[i - 1], xs[i]) > 0) return orderList(list, items);
  return items;
}

/**
 * Structural equality of JSON-like values (key order ignored: values may come back from jsonb; a
 * missing key equals null).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const arrayA = Array.isArray(a);
  if (arrayA !== Array.isArray(b)) return false;
  // `x !== y && !sameValue(x, y)`: equal primitives (the usual case) cost no call.
  if (arrayA) {
    const xs = a as unknown[];
    const ys = b as unknown[];
    if (xs.length !== ys.length) return false;
    for (let i = 0; i < xs.length; i++) if (xs[i] !== ys[i] && !sameValue(xs[i], ys[i])) return false;
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k in ra) {
    if (!Object.hasOwn(ra, k)) continue;
    const x = ra[k] ?? null;
    const y = rb[k] ?? null;
    if (x !== y && !sameValue(x, y)) return false;
  }
  // Keys only b has must be null (or undefined) there.
  for (const k in rb) {
    if (Object.hasOwn(rb, k) && !Object.hasOwn(ra, k) && (rb[k] ?? null) !== null) return false;
  }
  return true;
}

/** Fresh copies of list items (items are flat records of primitives), so no two states share one. */
export function copyItems<T extends object>(items: readonly T[]): T[] {
  const out = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = { ...items[i]! };
  return out;
}

/** Fresh copies of every list (an absent one, e.g. in an old stored change, is empty). */
export function copyLists(l: Partial<FlightLists>): FlightLists {
  return {
    stands: copyItems(l.stands ?? []), gates: copyItems(l.gates ?? []), counters: copyItems(l.counters ?? []),
    belts: copyItems(l.belts ?? []), chutes: copyItems(l.chutes ?? []), bridges: copyItems(l.bridges ?? []),
    chocks: copyItems(l.chocks ?? []), delays: copyItems(l.delays ?? []), services: copyItems(l.services ?? []),
    route: copyItems(l.route ?? []), adjacent: copyItems(l.adjacent ?? []),
    vipGuests: copyItems(l.vipGuests ?? []), pushbacks: copyItems(l.pushbacks ?? []), tows: copyItems(l.tows ?? []),
  };
}
