import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { loadConfig, OUTAGE_RETRY_MAX_MS, outageRetryDelay } from '../../src/platform/config.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { waitForDatabase } from '../../src/platform/waitForDatabase.ts';
import { captureLog } from './support/captureLog.ts';

const cfg = loadConfig({}); // the production backoff table: 1 s, 2 s, 4 s, 8 s, 16 s, cap 60 s

describe('outageRetryDelay', () => {
  it('follows the backoff table but never waits longer than OUTAGE_RETRY_MAX_MS, however long the outage', () => {
    expect(OUTAGE_RETRY_MAX_MS).toBeLessThan(5000); // docs/recovery.md: resume within 5 s of recovery
    expect([1, 2, 3, 4, 5, 50].map((a) => outageRetryDelay(cfg, a))).toEqual([1000, 2000, 2000, 2000, 2000, 2000]);
    expect(outageRetryDelay(loadConfig({ MSGX_BACKOFF_MS: '20' }), 9)).toBe(20);
  });
});

/** A pool whose queries fail with `failures` (in order), then answer. */
function flakyPool(failures: unknown[]) {
  let calls = 0;
  return {
    calls: () => calls,
    query: async () => {
      calls++;
      const f = failures.shift();
      if (f !== undefined) throw f;
      return { rows: [{ '?column?': 1 }] };
    },
  };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const startingUp = Object.assign(new Error('the database system is starting up'), { code: '57P03' });

describe('waitForDatabase', () => {
  it('waits out an unreachable or starting PostgreSQL, trying again on the outage delay, and says so once', async () => {
    const clock = new FakeClock();
    const pool = flakyPool([refused, refused, startingUp, refused]);
    const log = captureLog('info');
    let done = false;
    const waiting = waitForDatabase(pool as never, { cfg, clock, log: log.log }).then(() => (done = true));
    for (const step of [1000, 2000, 2000, 2000]) {
      await new Promise((r) => setImmediate(r));
      expect(done).toBe(false);
      clock.advance(step);
    }
    await waiting;
    expect(pool.calls()).toBe(5);
    const msgs = log.text().trim().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs).toEqual(['PostgreSQL not reachable; waiting for it', 'PostgreSQL reachable; starting']);
  });

  it('fails at once on anything that is not an outage (wrong password, no such database)', async () => {
    const badPassword = Object.assign(new Error('password authentication failed for user "msgx"'), { code: '28P01' });
    const pool = flakyPool([badPassword]);
    await expect(waitForDatabase(pool as never, { cfg, clock: new FakeClock(), log: silentLogger })).rejects.toBe(badPassword);
    expect(pool.calls()).toBe(1);
  });
});
