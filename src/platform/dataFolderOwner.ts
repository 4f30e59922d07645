import { readFileSync, unlinkSync } from 'node:fs';
import { chmod, chown, mkdir, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from './clock.ts';
import { isProcessAlive } from './processAlive.ts';

/**
 * Who runs the embedded PostgreSQL of a data folder, recorded in `<dataDir>/msgx.json`:
 * the msgx process that started it (pid, command) and, once it is up, how to connect to it.
 * A second msgx on the same folder reads this and connects to that server instead of starting
 * (or stopping) one; a record whose process is gone is stale and taken over.
 */
export interface OwnerRecord {
  readonly pid: number;
  readonly command: string;
  readonly startedAt: string;
  /** Set once the server accepts connections. */
  readonly url?: string;
}

export const OWNER_FILE = 'msgx.json';

/**
 * The data folder (docs/operations.md §data folder): created readable by its owner only (0700).
 * It holds the embedded server's password, the owner record and the outbound NDJSON files.
 * A folder that exists already keeps its mode (the operator chose it).
 */
export async function createDataFolder(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
}

/**
 * Run as root, the embedded PostgreSQL runs as the `postgres` account, which must pass through
 * the data folder to reach its own subfolder `pg/` (that one it owns). The folder stays root's,
 * with group `postgres` allowed to enter it but not to list or write it (0710), so no file that
 * root writes here (password, owner record, out/) lies in a folder another account owns.
 */
export async function letPostgresEnter(dataDir: string, postgres: { gid: number }): Promise<void> {
  await chown(dataDir, process.getuid?.() ?? 0, postgres.gid);
  await chmod(dataDir, 0o710);
}

export type Claim =
  | { readonly claimed: true; publish(url: string): Promise<void>; release(): Promise<void> }
  | { readonly claimed: false; readonly owner: OwnerRecord };

/** Take the data folder for this process, or say who has it (a live msgx). */
export async function claimDataFolder(dataDir: string, command: string, clock: Clock): Promise<Claim> {
  const file = path.join(dataDir, OWNER_FILE);
  for (let attempt = 0; ; attempt++) {
    const record: OwnerRecord = { pid: process.pid, command, startedAt: clock.now().toISOString() };
    try {
      const fh = await open(file, 'wx', 0o600);
      try {
        await fh.writeFile(JSON.stringify(record) + '\n');
      } finally {
        await fh.close();
      }
      return ownClaim(file, record);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = await readOwner(file, clock);
    if (owner && owner.pid !== process.pid && isProcessAlive(owner.pid)) return { claimed: false, owner };
    if (attempt >= 5) throw new Error(`cannot take over ${file}: it keeps reappearing`);
    // Stale (its process is gone) or unreadable: set it aside and claim again.
    await rename(file, `${file}.stale`).catch(() => undefined);
  }
}

/** The owner record, or undefined when there is none or it stays unreadable (a torn write). */
export async function readOwner(file: string, clock: Clock): Promise<OwnerRecord | undefined> {
  for (let i = 0; i < 20; i++) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const r = JSON.parse(text) as OwnerRecord;
      if (Number.isInteger(r.pid) && r.pid > 0) return r;
    } catch {
      // being written right now (created, not yet filled): look again shortly
    }
    await clock.sleep(50);
  }
  return undefined;
}

/**
 * Wait until the live owner has published its server's URL (it may still be starting it).
 * Undefined when the owner went away meanwhile (the caller claims the folder itself).
 */
export async function waitForOwnerUrl(dataDir: string, clock: Clock, timeoutMs: number, signal?: AbortSignal): Promise<OwnerRecord | undefined> {
  const file = path.join(dataDir, OWNER_FILE);
  const deadline = clock.now().getTime() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    const owner = await readOwner(file, clock);
    if (!owner || !isProcessAlive(owner.pid)) return undefined;
    if (owner.url) return owner;
    if (clock.now().getTime() > deadline) {
      throw new Error(`msgx pid ${owner.pid} (${owner.command}) holds ${file} but its embedded PostgreSQL did not come up within ${timeoutMs} ms`);
    }
    await clock.sleep(100, signal);
  }
}

function ownClaim(file: string, record: OwnerRecord): Claim {
  let current: OwnerRecord = record;
  let released = false;
  // A crash or process.exit without release leaves a record naming a dead pid (taken over later);
  // an orderly exit removes it here too.
  const onExit = () => {
    if (!released && stillOurs(file)) {
      try {
        unlinkSync(file);
      } catch {
        // gone already
      }
    }
  };
  process.once('exit', onExit);
  return {
    claimed: true,
    async publish(url) {
      current = { ...current, url };
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(current) + '\n', { mode: 0o600 });
      await rename(tmp, file); // atomic: a reader sees the old or the new record, never half
    },
    async release() {
      if (released) return;
      released = true;
      process.off('exit', onExit);
      if (stillOurs(file)) await unlink(file).catch(() => undefined);
    },
  };
}

function stillOurs(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as OwnerRecord).pid === process.pid;
  } catch {
    return false;
  }
}
