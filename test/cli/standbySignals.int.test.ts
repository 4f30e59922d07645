/**
 * `msgx start --standby` waiting for the writer lock stops promptly on SIGTERM and SIGINT
 * (`systemctl stop` must not hang): it exits 0 within 10 s of the signal.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WRITER_LOCK_KEY } from '../../src/domain/contract.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';
import { fileDatabase } from '../support/fileDatabase.ts';

const db = fileDatabase('standbysig');
let holder: pg.Client;

beforeAll(async () => {
  holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  // The active writer, as far as the standby can tell.
  await holder.query('SELECT pg_advisory_lock($1)', [WRITER_LOCK_KEY]);
});
afterAll(async () => {
  await holder?.end();
});

it.each(['SIGTERM', 'SIGINT'] as const)('a standby waiting for the writer lock exits 0 within 10 s of %s', async (signal) => {
  const msgx = spawnMsgx(['start', '--standby'], { MSGX_DATABASE_URL: db.url, MSGX_HTTP_PORT: '0', MSGX_LOG_LEVEL: 'info' });
  await msgx.waitForLine('standby: waiting for the writer lock', { timeoutMs: 150_000 });
  const sent = Date.now();
  msgx.kill(signal);
  expect(await msgx.exit).toEqual({ code: 0, signal: null });
  expect(Date.now() - sent).toBeLessThan(10_000);
  expect(msgx.output()).toContain('msgx stopped during start-up');
}, 240_000);
