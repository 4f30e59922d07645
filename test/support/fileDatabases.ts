/** This test file's PostgreSQL database and MariaDB mailbox (call at module level): made before its tests, dropped after. */
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from './databases.ts';

export interface FileDatabases {
  readonly db: TestDatabase;
  readonly my: TestMailbox;
}

export function fileDatabases(label: string): FileDatabases {
  let db: TestDatabase | undefined;
  let my: TestMailbox | undefined;
  beforeAll(async () => {
    [db, my] = await Promise.all([createTestDatabase(label), createTestMailbox(label)]);
  });
  afterAll(async () => {
    await Promise.all([db?.drop(), my?.drop()]);
  });
  const made = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error(`the databases of '${label}' are made in beforeAll`);
    return x;
  };
  return { get db() { return made(db); }, get my() { return made(my); } };
}
