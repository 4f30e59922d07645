/**
 * The test file's own PostgreSQL database (test/support/databases.ts, createTestDatabase): made
 * before the file's first test and dropped after its last. Call it at the top of the file, before
 * the file's own hooks: vitest runs hooks as a stack, so the file's beforeAll finds the database
 * made and its afterAll (stopping what used the database) runs before the drop.
 */
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './databases.ts';

export function fileDatabase(label: string, options?: { migrated?: boolean }): TestDatabase {
  let made: TestDatabase | undefined;
  beforeAll(async () => {
    made = await createTestDatabase(label, options);
  });
  afterAll(async () => {
    await made?.drop();
  });
  const the = (): TestDatabase => {
    if (!made) throw new Error(`the test database '${label}' is used outside the file's tests`);
    return made;
  };
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
