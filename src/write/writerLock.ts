import pg from 'pg';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import type { Service } from '../platform/service.ts';

/** Advisory lock key of the single writer (the migrator uses 7_735_001). */
export const WRITER_LOCK_KEY = 7_735_002;
/** How often a standby tries to take the lock. */
export const STANDBY_RETRY_MS = 1000;

export class WriterLockHeldError extends Error {
  constructor(readonly holder: string) {
    super(
      `another msgx writer is running (${holder}); only one writer may run at a time — ` +
        'stop it, start this one with --standby to take over when it stops, or use --role api',
    );
    this.name = 'WriterLockHeldError';
  }
}

export interface WriterLockOptions {
  readonly url: string;
  readonly standby: boolean;
  readonly clock: Clock;
  readonly log: Logger;
  /** The lock's connection died while we held it: another writer may take over, stop writing now. */
  readonly onLost: (err: Error) => void;
}

export interface WriterLock extends Service {
  held(): boolean;
}

/**
 * Invariant 5 (single writer): a session-level `pg_try_advisory_lock` on a dedicated connection.
 * When it is taken, `start()` fails with WriterLockHeldError naming the holder, or — standby —
 * retries every STANDBY_RETRY_MS until the holder's session ends (a killed process's connection is
 * closed by its kernel, so PostgreSQL frees the lock at once).
 */
export function createWriterLock(opts: WriterLockOptions): WriterLock {
  let client: pg.Client | undefined;
  let holding = false;
  let stopping = false;
  const stop = new AbortController();

  async function tryOnce(): Promise<boolean> {
    const c = new pg.Client({ connectionString: opts.url, application_name: 'msgx-writer-lock' });
    c.on('error', (err) => {
      if (holding && !stopping) {
        holding = false;
        opts.log.fatal({ err }, 'writer lock connection lost: this process must stop writing');
        opts.onLost(err);
      }
    });
    await c.connect();
    const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [WRITER_LOCK_KEY]);
    if (rows[0]?.ok) {
      client = c;
      holding = true;
      c.once('end', () => {
        if (holding && !stopping) {
          holding = false;
          opts.log.fatal('writer lock connection closed: this process must stop writing');
          opts.onLost(new Error('writer lock connection closed'));
        }
      });
      return true;
    }
    await c.end().catch(() => undefined);
    return false;
  }

  async function holder(): Promise<string> {
    const c = new pg.Client({ connectionString: opts.url });
    c.on('error', () => undefined); // a lost connection fails the query below; never crash on it
    try {
      await c.connect();
      const { rows } = await c.query<{ pid: number; app: string; addr: string | null; since: Date }>(
        `SELECT a.pid, a.application_name AS app, a.client_addr::text AS addr, a.backend_start AS since
           FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [WRITER_LOCK_KEY],
      );
      const r = rows[0];
      return r ? `database backend pid ${r.pid} from ${r.addr ?? 'local socket'}, connected since ${r.since.toISOString()}` : 'holder unknown';
    } catch {
      return 'holder unknown';
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  return {
    name: 'writer-lock',
    held: () => holding,
    async start() {
      if (await tryOnce()) {
        opts.log.info('writer lock taken');
        return;
      }
      const who = await holder();
      if (!opts.standby) throw new WriterLockHeldError(who);
      opts.log.info({ holder: who }, 'standby: waiting for the writer lock');
      while (!stop.signal.aborted) {
        await opts.clock.sleep(STANDBY_RETRY_MS, stop.signal);
        if (stop.signal.aborted) break;
        try {
          if (await tryOnce()) {
            opts.log.info('standby: writer lock taken, taking over');
            return;
          }
        } catch (err) {
          opts.log.warn({ err }, 'standby: cannot reach PostgreSQL');
        }
      }
      throw new Error('stopped while waiting for the writer lock');
    },
    async stop() {
      stopping = true;
      stop.abort();
      if (client) {
        await client.query('SELECT pg_advisory_unlock($1)', [WRITER_LOCK_KEY]).catch(() => undefined);
        await client.end().catch(() => undefined);
      }
      client = undefined;
      holding = false;
    },
  };
}
