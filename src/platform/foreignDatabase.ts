import type pg from 'pg';
import { RefusedError } from './errors.ts';

/** PostgreSQL's own databases: never msgx's, whatever they hold. */
const MAINTENANCE_DATABASES = ['postgres', 'template0', 'template1'];

/**
 * Before the first migration into a database: refuse one that is not meant for msgx — PostgreSQL's
 * maintenance database, or one that already holds tables while msgx has never migrated it (a URL
 * pointing at another application's database). `force` migrates anyway. A database msgx has
 * migrated before (it has schema_migration) is msgx's.
 */
export async function refuseForeignDatabase(client: pg.ClientBase, force: boolean): Promise<void> {
  const { rows } = await client.query<{ db: string; ours: boolean; tables: string[] }>(
    `SELECT current_database() AS db,
            to_regclass('schema_migration') IS NOT NULL AS ours,
            ARRAY(SELECT table_schema || '.' || table_name FROM information_schema.tables
                   WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg\\_%'
                   ORDER BY 1 LIMIT 6) AS tables`,
  );
  const { db, ours, tables } = rows[0]!;
  if (ours || force) return;
  if (MAINTENANCE_DATABASES.includes(db)) {
    throw new RefusedError(
      `refusing to migrate database '${db}': it is PostgreSQL's maintenance database, not one for msgx; ` +
        'create one (CREATE DATABASE msgx) and point MSGX_DATABASE_URL at it, or pass --force',
    );
  }
  if (tables.length > 0) {
    const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? ', …' : '');
    throw new RefusedError(
      `refusing to migrate database '${db}': it holds tables that are not msgx's (${shown}) and msgx has never migrated it; ` +
        'point MSGX_DATABASE_URL at an empty database, or pass --force to add msgx\'s tables beside them',
    );
  }
}
