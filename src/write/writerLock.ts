import pg from 'pg';
import { STANDBY_LOCK_KEY, WRITER_LOCK_KEY } from '../domain/contract.ts';
import { RefusedError } from '../platform/errors.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import type { Service } from '../platform/service.ts';
import { FencedError, type FencedCount, type WriterFence } from '../platform/writerFence.ts';

/**
 * How often a standby tries to take the lock, on the one connection it keeps for that: after a
 * writer's death the standby takes over within this (docs/operations.md "Single writer and standby").
 */
export const STANDBY_RETRY_MS = 250;
/**
 * Liveness of the held lock (docs/security.md): a round trip on the lock's own connection every
 * PROBE_INTERVAL_MS. A holder whose last answered probe is older than LEASE_MS cannot prove it
 * still holds the lock: it stops deciding and delivering (assertHeld throws) and reports it lost.
 */
export const PROBE_INTERVAL_MS = 2000;
export const LEASE_MS = 10_000;
/** stop() waits at most this long for the unlock and the goodbye on the lock connection. */
const STOP_WAIT_MS = 2000;
/**
 * Server side of the lock connection: PostgreSQL probes an idle client after 5 s, every 2 s, and
 * drops it after 3 unanswered probes (or 10 s of unacknowledged data), freeing the lock for a
 * standby in ~11 s when the writer's host silently disappears.
 */
const SERVER_KEEPALIVE_SQL = `SELECT set_config('tcp_keepalives_idle', '5', false), set_config('tcp_keepalives_interval', '2', false),
  set_config('tcp_keepalives_count', '3', false), set_config('tcp_user_timeout', '10000', false)`;

export class WriterLockHeldError extends RefusedError {
  constructor(readonly holder: string) {
    super(
      `another msgx writer is running (${holder}); only one writer may run at a time — ` +
        'stop it, start this one with --standby to take over when it stops, or use --role api',
    );
  }
}

export interface WriterLockOptions {
  readonly url: string;
  readonly standby: boolean;
  readonly clock: Clock;
  readonly log: Logger;
  /** The lock's connection died while we held it: another writer may take over, stop writing now. */
  readonly onLost: (err: Error) => void;
  /** Counts fenced commits and sends (msgx_writer_fenced_total); absent: not counted. */
  readonly fencedCount?: FencedCount;
}

export interface WriterLock extends Service, WriterFence {
  held(): boolean;
}

/**
 * Invariant 5 (single writer): a session-level `pg_try_advisory_lock` on a dedicated connection.
 * When it is taken, `start()` fails with WriterLockHeldError naming the holder, or — standby —
 * retries every STANDBY_RETRY_MS on one connection until the holder's session ends (a killed process's connection is
 * closed by its kernel, so PostgreSQL frees the lock at once).
 */
export function createWriterLock(opts: WriterLockOptions): WriterLock {
  let client: pg.Client | undefined;
  let holding = false;
  let stopping = false;
  let epoch: string | undefined;
  let confirmedAt = 0;
  let probing: Promise<void> | undefined;
  let fencedSaid = false;
  const stop = new AbortController();
  const now = () => opts.clock.now().getTime();

  const lose = (err: Error, msg: string) => {
    if (!holding || stopping) return;
    holding = false;
    opts.log.fatal({ err, epoch }, msg);
    opts.onLost(err);
  };

  /** A connection for the lock, with TCP keepalive on both sides. */
  async function lockConnection(): Promise<pg.Client> {
    // TCP keepalive on our side too: a silently dropped connection errors instead of hanging.
    const c = new pg.Client({ connectionString: opts.url, application_name: 'msgx-writer-lock', keepAlive: true, keepAliveInitialDelayMillis: 5000 });
    c.on('error', (err) => lose(err, 'writer lock connection lost: this process must stop writing'));
    await c.connect();
    try {
      await c.query(SERVER_KEEPALIVE_SQL);
    } catch (err) {
      opts.log.debug({ err }, 'writer lock: server keepalive settings not available');
    }
    return c;
  }

  /** Try the lock on `c`; taken: `c` is the lock's connection from now on. */
  async function tryOn(c: pg.Client): Promise<boolean> {
    const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [WRITER_LOCK_KEY]);
    if (!rows[0]?.ok) return false;
    // A new epoch for every holder: what this process decides and sends is fenced with it.
    const bumped = await c.query<{ epoch: string }>(
      `UPDATE writer_fence SET epoch = epoch + 1, holder = $1, taken_at = now() WHERE id = 1 RETURNING epoch::text AS epoch`,
      [`pid ${process.pid}`],
    );
    epoch = bumped.rows[0]?.epoch;
    client = c;
    holding = true;
    confirmedAt = now();
    c.once('end', () => lose(new Error('writer lock connection closed'), 'writer lock connection closed: this process must stop writing'));
    probing = probeLoop(c);
    return true;
  }

  async function tryOnce(): Promise<boolean> {
    const c = await lockConnection();
    if (await tryOn(c)) return true;
    await c.end().catch(() => undefined);
    return false;
  }

  /**
   * One round trip on the lock connection, at most PROBE_INTERVAL_MS: answered → the lease starts
   * again. After a block of the event loop longer than that (a fold or a big decision), the timer
   * is run before the socket is read, though the answer may be waiting there: one more turn of the
   * loop (its poll phase reads the socket) lets an answer that came in time count.
   */
  async function roundTrip(c: pg.Client): Promise<boolean> {
    let answered = false;
    const reply = c.query('SELECT 1').then(() => {
      answered = true;
    }, () => undefined);
    await Promise.race([reply, opts.clock.sleep(PROBE_INTERVAL_MS, stop.signal)]);
    if (!answered) await new Promise((resolve) => setImmediate(resolve));
    if (answered) confirmedAt = now();
    return answered;
  }

  /** The liveness probe: a round trip on the lock connection; no answer for LEASE_MS → lost. */
  async function probeLoop(c: pg.Client): Promise<void> {
    while (holding && !stopping) {
      await opts.clock.sleep(PROBE_INTERVAL_MS, stop.signal);
      if (!holding || stopping) return;
      const answered = await roundTrip(c);
      if (!answered && now() - confirmedAt > LEASE_MS) {
        lose(new FencedError(`writer lock: no answer on the lock connection for ${Math.round((now() - confirmedAt) / 1000)} s`), 'writer lock unproven: stopping deciding and delivering');
        c.end().catch(() => undefined);
        return;
      }
    }
  }

  /**
   * Says "a standby waits here" for the status (STANDBY_LOCK_KEY, shared: any number of standbys).
   * Best effort: the standby waits for the writer lock whether or not this marker could be set.
   */
  async function markStandby(): Promise<() => Promise<void>> {
    const c = new pg.Client({ connectionString: opts.url, application_name: 'msgx-standby' });
    c.on('error', () => undefined); // the marker is only shown, never relied on
    try {
      await c.connect();
      await c.query('SELECT pg_advisory_lock_shared($1)', [STANDBY_LOCK_KEY]);
    } catch (err) {
      opts.log.debug({ err }, 'standby: cannot mark this process as a standby in the status');
    }
    return () => c.end().catch(() => undefined);
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
    held: () => holding && now() - confirmedAt <= LEASE_MS,
    epoch: () => (holding ? epoch : undefined),
    assertHeld() {
      if (!holding) throw new FencedError('this process does not hold the writer lock');
      const age = now() - confirmedAt;
      if (age > LEASE_MS) throw new FencedError(`writer lock not confirmed for ${Math.round(age / 1000)} s (lease ${LEASE_MS / 1000} s)`);
    },
    async confirm() {
      // The session (and with it the advisory lock) outlives a busy event loop: the kernel keeps
      // answering the server's TCP keepalives. The commit's fence row check guards the epoch.
      if (holding && client && now() - confirmedAt > LEASE_MS) await roundTrip(client);
    },
    fenced(err, by) {
      opts.fencedCount?.add();
      if (fencedSaid) return;
      fencedSaid = true;
      // One clear line: not a database failure, and no retry — the standby has taken over.
      opts.log.error(
        { err, by, epoch },
        `writer fenced: ${by} was refused because this process no longer provably holds the writer lock (another writer took it over, or its lease of ${LEASE_MS / 1000} s ran out); it stops deciding and delivering and exits with code 1`,
      );
      if (stopping || !holding) return; // already lost: onLost has run
      holding = false;
      opts.onLost(err);
    },
    async start() {
      if (await tryOnce()) {
        opts.log.info('writer lock taken');
        return;
      }
      const who = await holder();
      if (!opts.standby) throw new WriterLockHeldError(who);
      opts.log.info({ holder: who }, 'standby: waiting for the writer lock');
      const unmark = await markStandby();
      // One connection for the tries (a new one only after it failed): a try is one round trip,
      // so it can come often without a backend started for each.
      let waiting: pg.Client | undefined;
      try {
        while (!stop.signal.aborted) {
          await opts.clock.sleep(STANDBY_RETRY_MS, stop.signal);
          if (stop.signal.aborted) break;
          try {
            waiting ??= await lockConnection();
            if (await tryOn(waiting)) {
              waiting = undefined;
              opts.log.info('standby: writer lock taken, taking over');
              return;
            }
          } catch (err) {
            opts.log.warn({ err }, 'standby: cannot reach PostgreSQL');
            await waiting?.end().catch(() => undefined);
            waiting = undefined;
          }
        }
      } finally {
        await waiting?.end().catch(() => undefined);
        await unmark();
      }
      throw new Error('stopped while waiting for the writer lock');
    },
    async stop() {
      stopping = true;
      stop.abort();
      await probing?.catch(() => undefined);
      const c = client;
      client = undefined;
      holding = false;
      if (c) {
        // Bounded: on a connection that went silent neither the unlock nor the goodbye is answered.
        const bounded = (p: Promise<unknown>) => Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref())]);
        await bounded(c.query('SELECT pg_advisory_unlock($1)', [WRITER_LOCK_KEY]));
        await bounded(c.end());
        (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      }
    },
  };
}
