/**
 * Array helpers that hold for any length. `target.push(...items)` passes every element as an
 * argument on the stack and throws `RangeError: Maximum call stack size exceeded` at ~100k elements
 * (a plan snapshot of 70k flights did; docs/projections.md "Big decisions"), so src never spreads
 * a list of data into a call (test/reliability/noUnboundedSpread.unit.test.ts).
 */

/** Appends `items` to `target` one by one (no argument spread); returns `target`. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
