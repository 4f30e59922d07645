/**
 * Secrets (docs/security.md): the embedded server gets a random password per data folder, kept in a 0600
 * file; a data folder made when every embedded server had the password `msgx` is moved to a random
 * one at its next start.
 */
import { mkdtemp, rm, stat, unlink, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { authenticates, LEGACY_PASSWORD, PASSWORD_FILE } from '../../src/platform/embeddedPassword.ts';
import { startEmbeddedPostgres } from '../../src/platform/embeddedPostgres.ts';
import { silentLogger } from '../../src/platform/logger.ts';

let dataDir: string | undefined;
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The server's URL with another password. */
function withPassword(url: string, password: string): string {
  const u = new URL(url);
  u.password = password;
  return u.toString();
}

it('uses a random password per data folder from a 0600 file, and rotates a legacy folder', async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-pw-'));
  const file = path.join(dataDir, PASSWORD_FILE);
  let server = await startEmbeddedPostgres(dataDir, silentLogger);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    expect(stored.length).toBeGreaterThanOrEqual(30);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(decodeURIComponent(new URL(server.url).password)).toBe(stored);
    expect(await authenticates(withPassword(server.url, LEGACY_PASSWORD))).toBe(false);
    // Make it look like a folder from before: the old fixed password, no file.
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    await c.query(`ALTER ROLE msgx PASSWORD 'msgx'`);
    await c.end();
    await unlink(file);
  } finally {
    await server.stop();
  }
  server = await startEmbeddedPostgres(dataDir, silentLogger);
  try {
    const rotated = (await readFile(file, 'utf8')).trim();
    expect(rotated).not.toBe(LEGACY_PASSWORD);
    expect(decodeURIComponent(new URL(server.url).password)).toBe(rotated);
    expect(await authenticates(withPassword(server.url, rotated))).toBe(true);
    expect(await authenticates(withPassword(server.url, LEGACY_PASSWORD))).toBe(false);
  } finally {
    await server.stop();
  }
}, 120_000);
