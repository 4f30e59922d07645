import { mkdir } from 'node:fs/promises';
import type pg from 'pg';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { redactUrl } from './config.ts';
import { createPool } from './db.ts';
import { startEmbeddedPostgres, type EmbeddedPg } from './embeddedPostgres.ts';
import type { Logger } from './logger.ts';
import { createMysqlMailbox } from './mailbox/mysqlMailbox.ts';
import { createPgMailbox } from './mailbox/pgMailbox.ts';
import type { Mailbox } from './mailbox/port.ts';
import { migrate } from './migrate.ts';
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
}

export async function openRuntime(cfg: Config, log: Logger, opts: OpenOptions = {}): Promise<Runtime> {
  let embedded: EmbeddedPg | undefined;
  let databaseUrl = cfg.databaseUrl;
  if (!databaseUrl) {
    await mkdir(cfg.dataDir, { recursive: true });
    embedded = await startEmbeddedPostgres(cfg.dataDir, log.child({ scope: 'embedded-pg' }));
    databaseUrl = embedded.url;
  } else {
    log.info({ database: redactUrl(databaseUrl) }, 'using PostgreSQL');
  }
  const pool = createPool(databaseUrl, { max: opts.poolMax ?? 10, applicationName: 'msgx' });
  const readUrl = cfg.readDatabaseUrl ?? databaseUrl;
  const readPool = readUrl === databaseUrl ? pool : createPool(readUrl, { max: 10, applicationName: 'msgx-read' });
  try {
    if (opts.waitForDatabase) await waitForDatabase(pool, { cfg, clock: opts.clock ?? systemClock, log, signal: opts.signal });
    if (opts.migrate) await migrate(pool, log.child({ scope: 'migrate' }));
    opts.signal?.throwIfAborted();
  } catch (err) {
    await pool.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
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
    async close() {
      await mailbox.close().catch(() => undefined);
      if (readPool !== pool) await readPool.end().catch(() => undefined);
      await pool.end().catch(() => undefined);
      await embedded?.stop();
    },
  };
}
