/**
 * Something a test file makes before its first test and ends after its last (a database, a running
 * app): call at module level, before the file's own hooks. vitest runs hooks as a stack, so the
 * file's beforeAll finds it made and the file's afterAll runs before it is ended. `the()` answers
 * it, and throws a clear error when used outside the file's tests.
 */
import { afterAll, beforeAll } from 'vitest';

export function fileFixture<T>(what: string, make: () => Promise<T>, end: (made: T) => Promise<unknown>): () => T {
  let made: T | undefined;
  beforeAll(async () => {
    made = await make();
  });
  afterAll(async () => {
    if (made !== undefined) await end(made);
  });
  return () => {
    if (made === undefined) throw new Error(`${what} is used outside the file's tests`);
    return made;
  };
}
