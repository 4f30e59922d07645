import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

/**
 * The embedded server's password (docs/security.md): random per data folder, kept in
 * `<dataDir>/pg-password` (mode 0600, readable by the msgx user only). Before this, every embedded
 * server had the password `msgx`; a data folder from then is moved to a random password at its
 * next start (rotated through `pg-password.new`, so an interrupted rotation is finished later).
 */
export const PASSWORD_FILE = 'pg-password';
/** The fixed password of data folders initialised before per-folder passwords. */
export const LEGACY_PASSWORD = 'msgx';

export function newPassword(): string {
  return randomBytes(24).toString('base64url');
}

export async function readPasswordFile(file: string): Promise<string | undefined> {
  try {
    const p = (await readFile(file, 'utf8')).trim();
    return p === '' ? undefined : p;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function writePasswordFile(file: string, password: string): Promise<void> {
  await writeFile(file, password + '\n', { mode: 0o600 });
  await chmod(file, 0o600); // an existing file keeps its mode on write: make sure
}

/** The password for a fresh data folder: made now and stored before the server is initialised. */
export async function passwordForFreshFolder(dataDir: string): Promise<string> {
  const password = newPassword();
  await writePasswordFile(path.join(dataDir, PASSWORD_FILE), password);
  return password;
}

/**
 * The password of a running server of an existing folder: the stored one, or — a folder from
 * before per-folder passwords (or an interrupted rotation) — whichever candidate authenticates, after which
 * the server is moved to a new random password and that is stored.
 */
export async function passwordForExistingFolder(dataDir: string, urlWith: (password: string) => string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  const stored = await readPasswordFile(file);
  if (stored !== undefined) return stored;
  const pending = await readPasswordFile(`${file}.new`);
  let current: string | undefined;
  for (const candidate of [pending, LEGACY_PASSWORD]) {
    if (candidate !== undefined && (await authenticates(urlWith(candidate)))) {
      current = candidate;
      break;
    }
  }
  if (current === undefined) throw new Error(`embedded PostgreSQL: no password in ${file} authenticates; restore that file`);
  const next = pending ?? newPassword();
  if (current !== next) {
    await writePasswordFile(`${file}.new`, next);
    const c = new pg.Client({ connectionString: urlWith(current) });
    c.on('error', () => undefined);
    await c.connect();
    try {
      // ALTER ROLE takes no parameters: the value reaches it through a session setting.
      await c.query("SELECT set_config('msgx.new_password', $1, false)", [next]);
      await c.query("DO $$ BEGIN EXECUTE format('ALTER ROLE %I PASSWORD %L', current_user, current_setting('msgx.new_password')); END $$");
    } finally {
      await c.end().catch(() => undefined);
    }
  }
  await rename(`${file}.new`, file);
  return next;
}

/** Whether a connection to `url` (with its password) is accepted. */
export async function authenticates(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => undefined);
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}
