import { createHash } from 'node:crypto';
import { RefusedError } from './errors.ts';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type pg from 'pg';
import { refuseForeignDatabase } from './foreignDatabase.ts';
import type { Logger } from './logger.ts';

export const PG_MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/pg/', import.meta.url));

/** Advisory lock key that serialises migrators (any constant that no other lock uses). */
const MIGRATION_LOCK = 7_735_001;

export interface MigrationFile {
  name: string;
  sql: string;
  sha256: string;
}

export class MigrationChangedError extends RefusedError {
  constructor(readonly file: string) {
    super(`migration ${file} was changed after it was applied; migrations are append-only — add a new file instead`);
  }
}

export async function readMigrations(dir = PG_MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((n) => /^\d{3}_[a-z0-9_]+\.sql$/.test(n)).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name), 'utf8');
      return { name, sql, sha256: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * Apply pending migrations in file order, each in its own transaction, recording name and hash.
 * Two migrators at once are serialised by a session advisory lock; the second sees the first's work.
 * Refuses to run when an applied file's content changed, and (unless `force`) to migrate a database
 * that is not meant for msgx (refuseForeignDatabase).
 */
export async function migrate(pool: pg.Pool, log?: Logger, dir = PG_MIGRATIONS_DIR, opts: { force?: boolean } = {}): Promise<string[]> {
  const files = await readMigrations(dir);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await refuseForeignDatabase(client, opts.force ?? false);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migration (
      name text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ name: string; sha256: string }>('SELECT name, sha256 FROM schema_migration');
    const done = new Map(rows.map((r) => [r.name, r.sha256]));
    for (const f of files) {
      const prior = done.get(f.name);
      if (prior !== undefined && prior !== f.sha256) throw new MigrationChangedError(f.name);
    }
    for (const f of files) {
      if (done.has(f.name)) continue;
      try {
        await client.query('BEGIN');
        await client.query(f.sql);
        await client.query('INSERT INTO schema_migration (name, sha256) VALUES ($1, $2)', [f.name, f.sha256]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`migration ${f.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(f.name);
      log?.info({ migration: f.name }, 'migration applied');
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}
