/**
 * Compare a GraphQL-shaped flight with a corpus expectation: every listed field must match;
 * lists must have the same length and each listed object's fields must match the element at the
 * same position; ISO date-times compare as instants (the corpus writes +08:00, we keep UTC).
 */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function sameScalar(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'string' && ISO_DATE_TIME.test(expected) && typeof actual === 'string') {
    return Date.parse(actual) === Date.parse(expected);
  }
  return actual === expected;
}

/** Mismatches of `actual` against `expected`, as readable lines ([] = match). */
export function mismatches(actual: unknown, expected: unknown, path = ''): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected a list, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) {
      return [`${path}: expected ${expected.length} items, got ${actual.length}: ${JSON.stringify(actual)}`];
    }
    return expected.flatMap((e, i) => mismatches(actual[i], e, `${path}[${i}]`));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null) return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    const a = actual as Record<string, unknown>;
    return Object.entries(expected).flatMap(([k, v]) => mismatches(a[k], v, path ? `${path}.${k}` : k));
  }
  return sameScalar(actual, expected) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}
