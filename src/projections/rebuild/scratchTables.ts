/**
 * The scratch copy of the flight projection's tables that a rebuild fills: schema `msgx_rebuild`,
 * each table cloned from its live twin with the same columns, defaults, checks, constraint and
 * index names (so after the swap nothing is renamed), foreign keys pointing inside the scratch
 * schema. Definitions come from the catalog, so columns or indexes added by later migrations are
 * cloned too.
 */
import { RefusedError } from '../../platform/errors.ts';
import type { Queryable } from '../../platform/db.ts';
import { FLIGHT_PROJECTION_TABLES } from '../../readModel/flightTables.ts';

export const SCRATCH_SCHEMA = 'msgx_rebuild';

/** Things a table swap would silently break: a rebuild refuses while they exist. */
export class RebuildRefusedError extends RefusedError {
  constructor(readonly problems: readonly string[]) {
    super(`rebuild refused:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Views, rules and triggers bind to a table, not to its name, and foreign keys from other tables
 * point at it: after a swap they would keep reading or guarding the retired table.
 */
export async function findSwapBlockers(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ problem: string }>(
    `WITH own AS (SELECT c.oid FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1::text[]))
     SELECT format('view %s reads %s', v.oid::regclass, d.refobjid::regclass) AS problem
       FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid JOIN pg_class v ON v.oid = r.ev_class
      WHERE d.classid = 'pg_rewrite'::regclass AND d.refobjid IN (SELECT oid FROM own) AND v.oid NOT IN (SELECT oid FROM own)
     UNION
     SELECT format('foreign key %s of %s references %s', k.conname, k.conrelid::regclass, k.confrelid::regclass)
       FROM pg_constraint k
      WHERE k.contype = 'f' AND k.confrelid IN (SELECT oid FROM own) AND k.conrelid NOT IN (SELECT oid FROM own)
     UNION
     SELECT format('trigger %s on %s', t.tgname, t.tgrelid::regclass)
       FROM pg_trigger t WHERE NOT t.tgisinternal AND t.tgrelid IN (SELECT oid FROM own)
     ORDER BY 1`,
    [[...FLIGHT_PROJECTION_TABLES]],
  );
  return rows.map((r) => r.problem);
}

export async function dropScratchTables(q: Queryable): Promise<void> {
  await q.query(`DROP SCHEMA IF EXISTS ${SCRATCH_SCHEMA} CASCADE`);
}

interface Def {
  table: string;
  name: string;
  def: string;
}

/** The scratch tables' foreign keys, added by `addScratchForeignKeys` once the bulk of the rows is written. */
export interface ScratchForeignKeys {
  readonly statements: readonly string[];
}

/**
 * Create empty scratch tables (dropping any left by an interrupted rebuild), without their foreign
 * keys: checking a foreign key row by row costs PostgreSQL about five times what checking it once
 * for the whole table does (ALTER TABLE … ADD CONSTRAINT), and a rebuild writes ~9 detail rows per
 * flight. Runs in one transaction of `q`.
 */
export async function createScratchTables(q: Queryable): Promise<ScratchForeignKeys> {
  const tables = [...FLIGHT_PROJECTION_TABLES];
  await dropScratchTables(q);
  await q.query(`CREATE SCHEMA ${SCRATCH_SCHEMA}`);
  // Constraint definitions print referenced tables unqualified when they are on the search path.
  await q.query('SET LOCAL search_path TO public');
  const constraints = await q.query<Def & { contype: string }>(
    `SELECT c.relname AS table, k.conname AS name, pg_get_constraintdef(k.oid) AS def, k.contype
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1::text[]) AND k.contype IN ('p', 'u', 'x', 'f')
      ORDER BY k.contype = 'f', c.relname, k.conname`,
    [tables],
  );
  const indexes = await q.query<Def>(
    `SELECT c.relname AS table, i.relname AS name, pg_get_indexdef(x.indexrelid) AS def
       FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid)
      ORDER BY c.relname, i.relname`,
    [tables],
  );
  for (const t of tables) {
    await q.query(`CREATE TABLE ${SCRATCH_SCHEMA}.${t} (LIKE public.${t} INCLUDING ALL EXCLUDING INDEXES)`);
  }
  // Unqualified names in the definitions now resolve to the scratch tables first.
  await q.query(`SET LOCAL search_path TO ${SCRATCH_SCHEMA}, public`);
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  for (const k of constraints.rows.filter((r) => r.contype !== 'f')) {
    await q.query(`ALTER TABLE ${SCRATCH_SCHEMA}.${k.table} ADD CONSTRAINT ${quote(k.name)} ${k.def}`);
  }
  for (const ix of indexes.rows) {
    const live = ` ON public.${ix.table} USING `;
    if (!ix.def.includes(live)) throw new Error(`cannot clone index ${ix.name}: unexpected definition ${ix.def}`);
    await q.query(ix.def.replace(live, ` ON ${SCRATCH_SCHEMA}.${ix.table} USING `));
  }
  await q.query('SET LOCAL search_path TO public');
  return {
    statements: constraints.rows
      .filter((r) => r.contype === 'f')
      .map((k) => `ALTER TABLE ${SCRATCH_SCHEMA}.${k.table} ADD CONSTRAINT ${quote(k.name)} ${k.def}`),
  };
}

/** Add the foreign keys `createScratchTables` left out (each checked once over its table). Runs in one transaction of `q`. */
export async function addScratchForeignKeys(q: Queryable, keys: ScratchForeignKeys): Promise<void> {
  // Unqualified names in the definitions resolve to the scratch tables first.
  await q.query(`SET LOCAL search_path TO ${SCRATCH_SCHEMA}, public`);
  for (const stmt of keys.statements) await q.query(stmt);
  await q.query('SET LOCAL search_path TO public');
}
