/**
 * The one comparison of a flight with a corpus expectation (expect.json, test/corpus/README.md),
 * for every suite that checks one — the domain fold, the projector's rows, GraphQL end to end:
 * every listed field must match; `null` means null (or absent); lists must have the same length
 * and each listed object's fields must match the element at the same position; ISO date-times
 * compare as instants (the corpus writes +08:00, msgx may answer in another offset).
 */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

const at = (where: string, key: string): string => (where ? `${where}.${key}` : key);

/** Differences between an expected value and the actual one, as readable lines ([] when they match). */
export function mismatches(expected: unknown, actual: unknown, where = ''): string[] {
  if (expected === null) return actual === null || actual === undefined ? [] : [`${where}: expected null, got ${JSON.stringify(actual)}`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${where}: expected a list, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) return [`${where}: expected ${expected.length} items, got ${actual.length}: ${JSON.stringify(actual)}`];
    return expected.flatMap((e, i) => mismatches(e, actual[i], `${where}[${i}]`));
  }
  if (typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return [`${where}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected as object).flatMap(([k, v]) => mismatches(v, (actual as Record<string, unknown>)[k], at(where, k)));
  }
  if (typeof expected === 'string' && INSTANT.test(expected) && typeof actual === 'string') {
    return Date.parse(expected) === Date.parse(actual) ? [] : [`${where}: expected instant ${expected}, got ${actual}`];
  }
  return expected === actual ? [] : [`${where}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}
