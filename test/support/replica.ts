/**
 * A real PostgreSQL streaming replica of the test server (docs/scaling.md "Read API replicas"):
 * `pg_basebackup -R` of the primary into a temporary folder, started with Debian's binaries as the
 * `postgres` OS user on a free port of 127.0.0.1, stopped and removed by `stop()`.
 * - `ensurePrimaryReplicates()`: the primary must accept replication connections from 127.0.0.1;
 *   Debian's default pg_hba.conf has no `replication` line, so one is appended (once) and the
 *   configuration reloaded — the same thing `.ci/run` does when it starts PostgreSQL.
 * - `caughtUp()`: waits until the replica has replayed everything the primary had written when it was
 *   called (pg_current_wal_lsn on the primary ≤ pg_last_wal_replay_lsn on the replica).
 */
import { execFile } from 'node:child_process';
import { appendFile, chmod, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { TEST_PG_ADMIN_URL, withAdminClient } from './databases.ts';
import { waitFor } from './waitFor.ts';

const run = promisify(execFile);
/** Debian's PostgreSQL 15 binaries (override with MSGX_TEST_PG_BIN). */
const PG_BIN = process.env.MSGX_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Run a PostgreSQL binary as the `postgres` OS user (the servers refuse to run as root). */
function asPostgres(bin: string, args: readonly string[]) {
  return run('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, bin), ...args], { maxBuffer: 16 * 1024 * 1024 });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Allow replication connections from 127.0.0.1 on the primary (idempotent: appends only when missing). */
export async function ensurePrimaryReplicates(): Promise<void> {
  await withAdminClient(async (c) => {
    const level = (await c.query<{ wal_level: string }>('SHOW wal_level')).rows[0]!.wal_level;
    if (level === 'minimal') throw new Error('the test PostgreSQL runs with wal_level=minimal: set wal_level=replica and restart it');
    const { rows } = await c.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_hba_file_rules WHERE 'replication' = ANY(database) AND error IS NULL",
    );
    if (rows[0]!.n > 0) return;
    const hba = (await c.query<{ hba_file: string }>('SHOW hba_file')).rows[0]!.hba_file;
    await appendFile(hba, '\n# msgx tests: streaming replicas on this machine (test/support/replica.ts)\nhost replication all 127.0.0.1/32 trust\n');
    await c.query('SELECT pg_reload_conf()');
    await waitFor(async () => {
      const r = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_hba_file_rules WHERE 'replication' = ANY(database)");
      return r.rows[0]!.n > 0;
    }, { what: 'the replication line in pg_hba.conf', timeoutMs: 10_000 });
  });
}

export interface TestReplica {
  readonly port: number;
  /** URL of `database` on the replica. */
  url(database: string): string;
  /** Resolves once the replica has replayed all WAL the primary had written when this was called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Run `fn` on one superuser connection to the replica (pg_wal_replay_pause and the like). */
  admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export async function startReplica(): Promise<TestReplica> {
  await ensurePrimaryReplicates();
  const primary = new URL(TEST_PG_ADMIN_URL);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-replica-'));
  const { uid, gid } = await postgresIds();
  await chown(dir, uid, gid);
  await chmod(dir, 0o700);
  const data = path.join(dir, 'data');
  const port = await freePort();
  let started = false;
  const stop = async () => {
    if (started) await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // The server is shared with other suites (a terminated session ends the copy): try up to 3 times.
    for (let attempt = 1; ; attempt++) {
      try {
        await asPostgres('pg_basebackup', [
          '-h', primary.hostname, '-p', primary.port || '5432', '-U', decodeURIComponent(primary.username || 'postgres'),
          '-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync',
        ]);
        break;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
    // Debian keeps postgresql.conf and pg_hba.conf in /etc, so the copy has none: give it its own.
    // A hot standby needs these at least as high as on the primary, so they are copied.
    const mustMatch = await withAdminClient(async (c) =>
      (await c.query<{ name: string; setting: string }>(
        "SELECT name, setting FROM pg_settings WHERE name IN ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')",
      )).rows.map((r) => `${r.name} = ${r.setting}`));
    const conf = [
      ...mustMatch,
      `port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`,
      'hot_standby = on', 'shared_buffers = 32MB', 'fsync = off', "log_min_messages = 'warning'",
      'max_standby_streaming_delay = 30s', 'wal_receiver_status_interval = 1s', 'hot_standby_feedback = on',
    ].join('\n');
    await writeFile(path.join(data, 'postgresql.conf'), `${conf}\n`);
    await writeFile(path.join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    await writeFile(path.join(data, 'pg_ident.conf'), '');
    for (const f of ['postgresql.conf', 'pg_hba.conf', 'pg_ident.conf']) await chown(path.join(data, f), uid, gid);
    await asPostgres('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']).catch(async (err: Error) => {
      const log = await readFile(path.join(dir, 'log'), 'utf8').catch(() => '');
      throw new Error(`the replica did not start: ${err.message}\n${log.slice(-2000)}`);
    });
    started = true;
  } catch (err) {
    await stop();
    throw err;
  }
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: url('postgres') });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  return {
    port,
    url,
    admin,
    async caughtUp(timeoutMs = 60_000) {
      const target = await withAdminClient(async (c) => (await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn);
      await admin((c) =>
        waitFor(async () => {
          const { rows } = await c.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [target]);
          return rows[0]!.ok === true;
        }, { what: `replica replayed ${target}`, timeoutMs }),
      );
    },
    stop,
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [{ stdout: u }, { stdout: g }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(u.trim()), gid: Number(g.trim()) };
}
