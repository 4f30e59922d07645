/** FLIDs are canonical decimal strings (int64 does not fit a JS number). */

/** Numeric order of canonical decimal FLIDs: by length, then text. */
export function compareFlids(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
