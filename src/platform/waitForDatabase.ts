import type pg from 'pg';
import type { Clock } from './clock.ts';
import { outageRetryDelay, type Config } from './config.ts';
import { isConnectionError } from './db.ts';
import type { Logger } from './logger.ts';

/**
 * Wait until PostgreSQL answers (`msgx start` after a database restart or a host reboot). Only
 * "cannot reach it" errors are waited out — tried again OUTAGE_RETRY_MAX_MS apart at most, and
 * logged once — so a process restarted by its supervisor during an outage waits instead of
 * crash-looping (systemd gives up after a few quick failures) and goes on as soon as the database
 * is back. Anything else (wrong password, no such database) fails at once; so does `signal` (a stop).
 */
export async function waitForDatabase(
  pool: Pick<pg.Pool, 'query'>,
  deps: { cfg: Pick<Config, 'backoffMs' | 'backoffCapMs'>; clock: Clock; log: Logger; signal?: AbortSignal },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    deps.signal?.throwIfAborted(); // stopped while waiting
    try {
      await pool.query('SELECT 1');
      if (attempt > 1) deps.log.info({ attempts: attempt }, 'PostgreSQL reachable; starting');
      return;
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      if (attempt === 1) deps.log.warn({ err }, 'PostgreSQL not reachable; waiting for it');
      await deps.clock.sleep(outageRetryDelay(deps.cfg, attempt), deps.signal);
    }
  }
}
