/**
 * The test file's own PostgreSQL database (test/support/databases.ts, createTestDatabase): made
 * before the file's first test and dropped after its last. Call it at the top of the file, before
 * the file's own hooks: vitest runs hooks as a stack, so the file's beforeAll finds the database
 * made and its afterAll (stopping what used the database) runs before the drop.
 */
import { createTestDatabase, type TestDatabase } from './databases.ts';
import { fileFixture } from './fileFixture.ts';

export function fileDatabase(label: string, options?: { migrated?: boolean }): TestDatabase {
  const the = fileFixture(`the test database '${label}'`, () => createTestDatabase(label, options), (db) => db.drop());
  return {
    get name() {
      return the().name;
    },
    get url() {
      return the().url;
    },
    get pool() {
      return the().pool;
    },
    drop: () => the().drop(),
  };
}
