/**
 * A fenced commit is never a silent retry loop (docs/operations.md "Writer fenced"): when another
 * writer has taken the lock (writer_fence moved past this process's epoch), the pump's commit is
 * refused, and the writer logs one line saying what happened (not a database failure), counts it in
 * msgx_writer_fenced_total, decides nothing more, and the process exits with code 1. On main the
 * pump rethrew the FencedError into its service loop, which logged "cannot reach its database" and
 * tried again with backoff, for ever.
 */
import { afterEach, expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.ts';
import { FencedCount } from '../../src/platform/writerFence.ts';
import { createMetrics } from '../../src/read-api/metrics/createMetrics.ts';
import { createIngest } from '../../src/write/ingest/ingestService.ts';
import { createPump } from '../../src/write/pump/pumpService.ts';
import { WriteModel } from '../../src/write/pump/writeModel.ts';
import { createWriterLock } from '../../src/write/writerLock.ts';
import type { Service } from '../../src/platform/service.ts';
import { fileDatabases } from '../support/fileDatabases.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';
import { waitFor } from '../support/waitFor.ts';
import { adft, estt } from '../write/support/messages.ts';
import { insertCminmsgs, procStates, testRuntime } from '../write/support/writeHarness.ts';
import { captureLog } from './support/captureLog.ts';

const dbs = fileDatabases('fenced');
let running: Service[] = [];

afterEach(async () => {
  for (const s of running.reverse()) await s.stop();
  running = [];
});

/** What a successor's takeover does to the fence (writerLock.ts: a new epoch for every holder). */
const successorTakesOver = () => dbs.db.pool.query('UPDATE writer_fence SET epoch = epoch + 1 WHERE id = 1');
const state = async (id: string) => (await procStates(dbs.db)).find((p) => p.msg_id === id)?.state;

it('a fenced commit: one log line naming it, msgx_writer_fenced_total 1, the lock reported lost, no retry', { timeout: 60_000 }, async () => {
  const captured = captureLog('info');
  const lost: Error[] = [];
  const fencedCount = new FencedCount();
  const rt = { ...testRuntime(dbs.db, dbs.my), log: captured.log };
  const lock = createWriterLock({ url: dbs.db.url, standby: false, clock: systemClock, log: captured.log, onLost: (e) => lost.push(e), fencedCount });
  const ingest = createIngest(rt);
  const pump = createPump(rt, { model: new WriteModel(), fence: lock });
  for (const s of [lock, ingest, pump]) {
    await s.start();
    running.push(s);
  }
  const first = await insertCminmsgs(dbs.my, adft(1, '886001'));
  await waitFor(async () => (await state(first)) === 'SUCCEEDED', { timeoutMs: 30_000, what: 'decided while the lock is ours' });

  await successorTakesOver();
  const second = await insertCminmsgs(dbs.my, estt(2, '886001', '14MAR250812'));
  await waitFor(() => lost.length > 0, { timeoutMs: 30_000, what: 'the fenced commit to stop the writer' });
  // Several more passes of the pump: none of them tries to commit again.
  for (let i = 0; i < 3; i++) await pump.drained();
  expect(fencedCount.value).toBe(1);
  expect(lost).toHaveLength(1);
  expect(lost[0]!.message).toMatch(/another writer took the lock/);
  expect(await state(second)).toBe('PENDING');

  const lines = captured.text().split('\n').filter((l) => l.includes('writer fenced'));
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, by: 'pump', msg: expect.stringMatching(/^writer fenced: pump was refused .* exits with code 1$/) });
  expect(captured.text()).not.toMatch(/cannot reach its database/);

  const metrics = createMetrics({ db: dbs.db.pool, clock: systemClock, tz: 'UTC', defaultMetrics: false, fenced: fencedCount });
  expect(await metrics.scrape()).toMatch(/^msgx_writer_fenced_total 1$/m);
});

it('msgx start: a fenced commit ends the process with exit code 1 and the fenced line', { timeout: 120_000 }, async () => {
  const app = spawnMsgx(['start'], {
    MSGX_DATABASE_URL: dbs.db.url,
    MSGX_MAILBOX_MYSQL_URL: dbs.my.url,
    MSGX_HTTP_PORT: '0',
    MSGX_POLL_INTERVAL_MS: '100',
    MSGX_GAP_TIMEOUT_MS: '300',
    MSGX_LOG_LEVEL: 'info',
  });
  try {
    await app.waitForLine('"msg":"msgx started"', { timeoutMs: 60_000 });
    await successorTakesOver();
    await insertCminmsgs(dbs.my, estt(3, '886001', '14MAR250815'));
    const exit = await app.exit;
    expect(exit.code).toBe(1);
    // Whichever notices the successor first — the pump's commit of the new message or a delivery
    // of an earlier decision's record (under load the dispatcher often runs first) — says so once.
    expect(app.output()).toMatch(/writer fenced: (pump|delivery [A-Z_]+) was refused/);
    expect(app.output().match(/writer fenced: /g)).toHaveLength(1);
  } finally {
    await app.stop();
  }
});
