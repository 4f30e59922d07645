import type pg from 'pg';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { redactUrl } from './config.ts';
import { claimDataFolder, createDataFolder, waitForOwnerUrl, type Claim } from './dataFolderOwner.ts';
import { createPool } from './db.ts';
import { startEmbeddedPostgres, type EmbeddedPg } from './embeddedPostgres.ts';
import { noFaults, type Faults } from './faults.ts';
import type { Logger } from './logger.ts';
import { createMysqlMailbox } from './mailbox/mysqlMailbox.ts';
import { createPgMailbox } from './mailbox/pgMailbox.ts';
import type { Mailbox } from './mailbox/port.ts';
import { migrate } from './migrate.ts';
import { RefusedError } from './errors.ts';
import { waitForDatabase } from './waitForDatabase.ts';

/**
 * Everything a role needs, built once by the composition root (`msgx start`, the CLI commands,
 * the tests). Roles receive this and never read process.env or construct pools themselves.
 */
export interface Runtime {
  readonly cfg: Config;
  readonly log: Logger;
  readonly clock: Clock;
  /** Read-write pool on the own PostgreSQL. */
  readonly pool: pg.Pool;
  /** Pool for the read API (a replica when MSGX_READ_DATABASE_URL is set). */
  readonly readPool: pg.Pool;
  readonly mailbox: Mailbox;
  readonly databaseUrl: string;
  /** The fault port at the write side's crash points (noFaults except in the crash matrix). */
  readonly faults: Faults;
  close(): Promise<void>;
}

export interface OpenOptions {
  clock?: Clock;
  /** Apply pending migrations (true for `start` and `migrate`). */
  migrate?: boolean;
  /** Pool size of the read-write pool. */
  poolMax?: number;
  /** Wait for an unreachable PostgreSQL instead of failing (`msgx start`; see waitForDatabase). */
  waitForDatabase?: boolean;
  /** A stop requested during start-up: stop waiting, clean up, and throw (the signal's reason). */
  signal?: AbortSignal;
  /** Which command opens it (recorded in the data folder beside an embedded server). */
  command?: string;
  /**
   * Embedded default: refuse when another msgx runs on the data folder (`msgx start`). Without it,
   * a command beside a running msgx connects to that msgx's embedded server and never stops it.
   */
  exclusive?: boolean;
  /** Migrate even when the database holds tables that are not msgx's (`--force`). */
  force?: boolean;
  /** The fault port (default noFaults; the crash matrix's test entry point installs a killing one). */
  faults?: Faults;
}

/** How long a command waits for the running msgx's embedded server to come up. */
const OWNER_START_WAIT_MS = 120_000;

export async function openRuntime(cfg: Config, log: Logger, opts: OpenOptions = {}): Promise<Runtime> {
  let embedded: EmbeddedPg | undefined;
  let claim: Claim | undefined;
  let databaseUrl = cfg.databaseUrl;
  if (!databaseUrl) {
    const clock = opts.clock ?? systemClock;
    await createDataFolder(cfg.dataDir);
    for (;;) {
      claim = await claimDataFolder(cfg.dataDir, `msgx ${opts.command ?? 'command'}`, clock);
      if (claim.claimed) break;
      const { owner } = claim;
      if (opts.exclusive) {
        throw new RefusedError(
          `another msgx is running (pid ${owner.pid}, ${owner.command}) on data folder ${cfg.dataDir}; ` +
            'stop it first, or run this one against a shared PostgreSQL (MSGX_DATABASE_URL)',
        );
      }
      const ready = await waitForOwnerUrl(cfg.dataDir, clock, OWNER_START_WAIT_MS, opts.signal);
      if (ready?.url) {
        databaseUrl = ready.url;
        log.info({ pid: ready.pid, owner: ready.command, database: redactUrl(ready.url) }, 'using the embedded PostgreSQL of the running msgx');
        claim = undefined;
        break;
      }
      // its owner went away while we waited: claim the folder ourselves
    }
    if (claim?.claimed) {
      try {
        embedded = await startEmbeddedPostgres(cfg.dataDir, log.child({ scope: 'embedded-pg' }));
        await claim.publish(embedded.url);
      } catch (err) {
        await embedded?.stop().catch(() => undefined);
        await claim.release();
        throw err;
      }
      databaseUrl = embedded.url;
    }
  } else {
    log.info({ database: redactUrl(databaseUrl) }, 'using PostgreSQL');
  }
  if (!databaseUrl) throw new Error('no database URL'); // unreachable: set by one of the branches above
  const pool = createPool(databaseUrl, { max: opts.poolMax ?? 10, applicationName: 'msgx' });
  const readUrl = cfg.readDatabaseUrl ?? databaseUrl;
  // Always its own pool (docs/security.md): a burst of reads waits for its own connections, never for the
  // writer's, and no statement of the read API runs longer than MSGX_READ_STATEMENT_TIMEOUT_MS.
  const readPool = createPool(readUrl, {
    max: 10,
    applicationName: 'msgx-read',
    statementTimeoutMs: cfg.readStatementTimeoutMs,
    readOnly: true,
  });
  try {
    if (opts.waitForDatabase) await waitForDatabase(pool, { cfg, clock: opts.clock ?? systemClock, log, signal: opts.signal });
    if (opts.migrate) await migrate(pool, log.child({ scope: 'migrate' }), undefined, { force: opts.force ?? false });
    opts.signal?.throwIfAborted();
  } catch (err) {
    await readPool.end().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    if (claim?.claimed) await claim.release();
    throw err;
  }
  const mailbox = cfg.mailboxMysqlUrl
    ? createMysqlMailbox(cfg.mailboxMysqlUrl, cfg.airportTz)
    : createPgMailbox(pool, cfg.airportTz);
  log.info(
    { mailbox: cfg.mailboxMysqlUrl ? redactUrl(cfg.mailboxMysqlUrl) : 'emulated in own PostgreSQL (schema mailbox)' },
    'mailbox',
  );
  return {
    cfg,
    log,
    clock: opts.clock ?? systemClock,
    pool,
    readPool,
    mailbox,
    databaseUrl,
    faults: opts.faults ?? noFaults,
    async close() {
      await mailbox.close().catch(() => undefined);
      await readPool.end().catch(() => undefined);
      await pool.end().catch(() => undefined);
      try {
        await embedded?.stop();
      } finally {
        if (claim?.claimed) await claim.release();
      }
    },
  };
}

/** `fn` on a runtime opened for one command, closed whatever `fn` does (the CLI's one-shot commands). */
export async function withRuntime<T>(cfg: Config, log: Logger, opts: OpenOptions, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const rt = await openRuntime(cfg, log, opts);
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}
