/**
 * Reads never slow the writer (docs/security.md): in role `all` the read API has its own pool, read-only,
 * with a statement_timeout; a burst of slow reads holds only the read pool's connections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.ts';
import { sqlState } from '../../src/platform/db.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../src/platform/runtime.ts';
import { fileDatabase } from '../support/fileDatabase.ts';

const db = fileDatabase('readiso');
let rt: Runtime;

beforeAll(async () => {
  rt = await openRuntime(loadConfig({ MSGX_DATABASE_URL: db.url, MSGX_READ_STATEMENT_TIMEOUT_MS: '300' }), silentLogger);
});
afterAll(async () => {
  await rt?.close();
});

describe('read pool', () => {
  it('is a pool of its own, read-only, with the statement_timeout', async () => {
    expect(rt.readPool).not.toBe(rt.pool);
    expect((await rt.readPool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('300ms');
    expect((await rt.pool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('0');
    const slow = await rt.readPool.query('SELECT pg_sleep(5)').then(() => 'finished', (e: unknown) => sqlState(e));
    expect(slow).toBe('57014'); // query_canceled by statement_timeout
    const write = await rt.readPool.query(`INSERT INTO inbox_cursor (source) VALUES ('x')`).then(() => 'written', (e: unknown) => sqlState(e));
    expect(write).toBe('25006'); // read_only_sql_transaction
  });

  it('a burst of slow reads leaves the writer pool free', async () => {
    const order: string[] = [];
    const reads = Array.from({ length: 30 }, () =>
      rt.readPool.query('SELECT pg_sleep(0.2)').then(
        () => order.push('read'),
        () => order.push('read'),
      ),
    );
    await rt.pool.query('SELECT 1');
    order.push('writer');
    await Promise.all(reads);
    // 30 reads on 10 connections take three rounds; the writer's statement did not queue behind them
    expect(order.indexOf('writer')).toBeLessThan(10);
  });
});
