/**
 * A graceful stop in the middle of traffic (docs/operations.md "Stopping", docs/recovery.md): the
 * writer exits 0 on SIGTERM, logs in one line what it leaves to the next start (undecided
 * messages, write-backs, deliveries, decisions not projected yet), and nothing is lost by leaving
 * it: the next start re-drives all of it from PostgreSQL — every message decided once, written
 * back, every delivery sent. Also a standby's takeover from a warm model, and the backfill's
 * stop between batches.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftAtStop } from '../../src/cli/leftAtStop.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';
import { waitFor } from '../support/waitFor.ts';
import { generateTraffic } from '../write/support/traffic.ts';
import { insertCminmsgsBulk, terminalCounts, decisions } from '../write/support/writeHarness.ts';
import { readProgress } from './support/crashProgress.ts';

let db: TestDatabase;
let my: TestMailbox;
let dataDir: string;

beforeAll(async () => {
  [db, my] = await Promise.all([createTestDatabase('gracefulstop'), createTestMailbox('gracefulstop')]);
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-stop-'));
});
afterAll(async () => {
  await Promise.all([db?.drop(), my?.drop()]);
  await rm(dataDir, { recursive: true, force: true });
});

const env = () => ({
  MSGX_DATABASE_URL: db.url, MSGX_MAILBOX_MYSQL_URL: my.url, MSGX_HTTP_PORT: '0', MSGX_DATA_DIR: dataDir, MSGX_LOG_LEVEL: 'info',
  MSGX_POLL_INTERVAL_MS: '50', MSGX_INGEST_BATCH: '50', MSGX_SNAPSHOT_EVERY: '100', MSGX_STOP_TIMEOUT_MS: '5000',
  MSGX_REQUEST_REFERENCE_AT_START: 'false', MSGX_CONSISTENCY_CHECK_ON_START: 'false',
});

/** The last JSON log line that contains `text`. */
const lineWith = (output: string, text: string): Record<string, unknown> | undefined =>
  output.split('\n').filter((l) => l.includes(text)).map((l) => JSON.parse(l) as Record<string, unknown>).at(-1);

describe('graceful stop and the next start', () => {
  it('SIGTERM mid-traffic: exit 0, one line with what is left; a warm standby takes over and re-drives all of it; nothing lost or decided twice', { timeout: 300_000 }, async () => {
    const total = 600;
    await insertCminmsgsBulk(my, generateTraffic(total));
    const writer = spawnMsgx(['start', '--role', 'writer'], env());
    await writer.waitForLine('pump started', { timeoutMs: 150_000 });
    // The standby: its write model follows the writer's decisions while it waits for the lock.
    const standby = spawnMsgx(['start', '--role', 'writer', '--standby'], env());
    await standby.waitForLine('standby: write model follows the log', { timeoutMs: 150_000 });
    await waitFor(async () => (await readProgress(db.pool)).decisions >= 200, { timeoutMs: 60_000, what: 'some decisions' });

    writer.kill('SIGTERM');
    expect(await writer.exit).toEqual({ code: 0, signal: null });
    const left = lineWith(writer.output(), 'left to the next start');
    expect(left).toMatchObject({ undecided: expect.any(Number), writeBacks: expect.any(Number), deliveries: expect.any(Number), unprojected: expect.any(Number) });

    // The standby takes over from its model (folding only what it had not followed yet) and finishes everything.
    await standby.waitForLine('standby: writer lock taken, taking over', { timeoutMs: 60_000 });
    const takeover = await standby.waitForLine((l) => l.includes('write model caught up') && l.includes('"from":"warm model"'), { timeoutMs: 60_000 });
    expect(JSON.parse(takeover)).toMatchObject({ from: 'warm model', position: expect.any(String) });
    await waitFor(async () => {
      const l = await leftAtStop(db.pool, { now: new Date(), tz: 'UTC' });
      const p = await readProgress(db.pool);
      return p.ingested === total && l.undecided === 0 && l.writeBacks === 0 && l.deliveries === 0 && l.unprojected === 0;
    }, { timeoutMs: 120_000, what: 'everything decided, written back, projected and delivered' });
    standby.kill('SIGTERM');
    expect(await standby.exit).toEqual({ code: 0, signal: null });
    expect(lineWith(standby.output(), 'left to the next start')).toMatchObject({ undecided: 0, writeBacks: 0, deliveries: 0, unprojected: 0 });

    // Nothing decided twice, every message terminal once; every CMINMSGS row written back.
    const counts = terminalCounts(await decisions(db));
    expect(counts.size).toBe(total);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const [rows] = await my.pool.query('SELECT count(*) AS n FROM CMINMSGS WHERE CMINMSGS_DATE_PROCESSED IS NULL');
    expect(Number((rows as { n: number }[])[0]!.n)).toBe(0);
  });
});
