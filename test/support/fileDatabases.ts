/** This test file's PostgreSQL database and MariaDB mailbox (call at module level): made before its tests, dropped after. */
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from './databases.ts';
import { fileFixture } from './fileFixture.ts';

export interface FileDatabases {
  readonly db: TestDatabase;
  readonly my: TestMailbox;
}

export function fileDatabases(label: string): FileDatabases {
  const both = fileFixture(
    `the databases of '${label}'`,
    async () => {
      const [db, my] = await Promise.all([createTestDatabase(label), createTestMailbox(label)]);
      return { db, my };
    },
    ({ db, my }) => Promise.all([db.drop(), my.drop()]),
  );
  return { get db() { return both().db; }, get my() { return both().my; } };
}
