/**
 * The swap: inside the caller's transaction, lock the live tables, give the scratch tables the
 * live tables' grants, move the live tables out and the scratch tables in, drop the old ones.
 * Readers wait for the locks (a few milliseconds) and then read the new tables under the same
 * names; nobody sees an empty or half-built table.
 */
import type { Queryable } from '../../platform/db.ts';
import { FLIGHT_PROJECTION_TABLES } from '../../readModel/flightTables.ts';
import { SCRATCH_SCHEMA } from './scratchTables.ts';

const RETIRED_SCHEMA = 'msgx_retired';

/**
 * GRANT statements that give `to` every privilege granted on `from` (other than the owner's own),
 * built by PostgreSQL from the catalog with quoted role names.
 */
async function grantsLike(q: Queryable, from: string, to: string): Promise<string[]> {
  const { rows } = await q.query<{ stmt: string }>(
    `SELECT format('GRANT %s ON TABLE %s TO %s%s', a.privilege_type, $2::text,
                   CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END,
                   CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END) AS stmt
       FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee
      WHERE c.oid = $1::regclass AND a.grantee <> c.relowner`,
    [from, to],
  );
  return rows.map((r) => r.stmt);
}

/** Swap scratch and live tables. `lockTimeoutMs` bounds how long readers queue behind the swap. */
export async function swapTables(q: Queryable, lockTimeoutMs: number): Promise<void> {
  const tables = [...FLIGHT_PROJECTION_TABLES];
  await q.query(`SELECT set_config('lock_timeout', $1, true)`, [`${lockTimeoutMs}ms`]);
  // One statement, parents first — the order in which readers touch them.
  await q.query(`LOCK TABLE ${tables.map((t) => `public.${t}`).join(', ')} IN ACCESS EXCLUSIVE MODE`);
  await q.query(`SELECT set_config('lock_timeout', '0', true)`);
  for (const t of tables) {
    for (const stmt of await grantsLike(q, `public.${t}`, `${SCRATCH_SCHEMA}.${t}`)) await q.query(stmt);
  }
  await q.query(`CREATE SCHEMA ${RETIRED_SCHEMA}`);
  for (const t of tables) await q.query(`ALTER TABLE public.${t} SET SCHEMA ${RETIRED_SCHEMA}`);
  for (const t of tables) await q.query(`ALTER TABLE ${SCRATCH_SCHEMA}.${t} SET SCHEMA public`);
  await q.query(`DROP SCHEMA ${RETIRED_SCHEMA} CASCADE`);
  await q.query(`DROP SCHEMA ${SCRATCH_SCHEMA}`);
}
