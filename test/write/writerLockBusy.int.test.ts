/**
 * A writer whose own event loop was busy longer than the lease (one big decision decided or
 * projected, docs/projections.md "Big decisions") still holds the lock: its session lives on (the
 * kernel answers the server's keepalives), only the probe could not run. Before a commit or a send
 * the fence proves the lock again with one round trip (WriterFence.confirm) instead of refusing:
 * under load, a 70,000-record plan's decide took longer than the 10 s lease and every commit of it
 * was fenced — the writer exited, and after a restart decided the same plan again. A lock whose
 * connection does not answer is still refused (test/write/writerFence.int.test.ts).
 */
import { afterAll, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/platform/clock.ts';
import { withTransaction } from '../../src/platform/db.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { FencedError } from '../../src/platform/writerFence.ts';
import { checkFence } from '../../src/write/pump/commitDecisions.ts';
import { createWriterLock, LEASE_MS, PROBE_INTERVAL_MS, type WriterLock } from '../../src/write/writerLock.ts';
import { fileDatabase } from '../support/fileDatabase.ts';

const db = fileDatabase('writerbusy');
let lock: WriterLock | undefined;
afterAll(async () => {
  await lock?.stop();
});

it('a lease run out by a busy event loop is proven again by one round trip before the commit', { timeout: 60_000 }, async () => {
  // The clock the lease is read with: shifted past the lease, as if the loop had been blocked that long.
  let shift = 0;
  const clock: Clock = { now: () => new Date(Date.now() + shift), sleep: (ms, signal) => systemClock.sleep(ms, signal) };
  const lost: Error[] = [];
  lock = createWriterLock({ url: db.url, standby: false, clock, log: silentLogger, onLost: (e) => lost.push(e) });
  await lock.start();
  shift = LEASE_MS + 1000;
  expect(() => lock!.assertHeld()).toThrow(FencedError);
  await expect(withTransaction(db.pool, (c) => checkFence(c, lock))).resolves.toBeUndefined();
  expect(() => lock!.assertHeld()).not.toThrow();
  expect(lost).toEqual([]);
});

it('a loop busy in blocks longer than the probe interval, for longer than the lease, keeps the lock: an answer waiting in the socket counts', { timeout: 90_000 }, async () => {
  await lock?.stop(); // the test above's
  lock = undefined;
  const lost: Error[] = [];
  const busyLock = createWriterLock({ url: db.url, standby: false, clock: systemClock, log: silentLogger, onLost: (e) => lost.push(e) });
  await busyLock.start();
  try {
    // As a fold from position 0 under load: pages of synchronous work, each longer than PROBE_INTERVAL_MS, with I/O between.
    const until = Date.now() + LEASE_MS + 4000;
    while (Date.now() < until) {
      const end = Date.now() + PROBE_INTERVAL_MS + 300;
      while (Date.now() < end) {
        // busy: the event loop is held
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(lost).toEqual([]);
    expect(() => busyLock.assertHeld()).not.toThrow();
  } finally {
    await busyLock.stop();
  }
});
