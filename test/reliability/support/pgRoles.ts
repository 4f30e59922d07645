/**
 * Throwaway PostgreSQL roles for the privilege tests. Roles are cluster-global, so each name
 * carries the test process id (`msgx_t_<label>_<pid>_<random>`), like the test databases; the next
 * run's global setup drops those whose process is gone (test/support/globalSetup.ts).
 */
import { withAdminClient, type TestDatabase } from '../../support/databases.ts';

export interface LoginRole {
  readonly name: string;
  /** `db.url` with this role as the user (and a password, which trust authentication ignores). */
  readonly url: string;
  drop(): Promise<void>;
}

export const TEST_ROLE_PREFIX = 'msgx_t_';

/** A LOGIN role on `db`, member of `inRole` when given (identifiers are ours, never input). */
export async function createLoginRole(db: TestDatabase, label: string, inRole: string | null): Promise<LoginRole> {
  const name = `${TEST_ROLE_PREFIX}${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  await withAdminClient(async (c) => {
    // CREATE ROLE takes no parameters: the password literal is quoted by the server's quote_literal.
    const { rows } = await c.query<{ stmt: string }>(
      `SELECT format('CREATE ROLE %I LOGIN PASSWORD %L%s', $1::text, $2::text, CASE WHEN $3::text IS NULL THEN '' ELSE format(' IN ROLE %I', $3::text) END) AS stmt`,
      [name, password, inRole],
    );
    await c.query(rows[0]!.stmt);
  });
  const u = new URL(db.url);
  u.username = name;
  u.password = password;
  return {
    name,
    url: u.toString(),
    async drop() {
      await withAdminClient((c) => c.query(`DROP ROLE IF EXISTS "${name}"`));
    },
  };
}
