/**
 * Issue 17 in headless Chromium: rebuild progress on the console whichever process runs it (a
 * `msgx rebuild` from the CLI beside the running service).
 * MSGX_UPDATE_SCREENSHOTS=1 writes docs/console-operations.png.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { spawnMsgx } from '../support/msgxProcess.ts';
import type { TestDatabase } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import { openPage } from './browser.ts';
import { consoleSetting, type ConsoleSetting } from './consoleSetting.ts';

const TOKEN = 'ops:console-actions-token-0123456789';
const SHOTS = process.env.MSGX_UPDATE_SCREENSHOTS === '1';
/** Waits on the page: a CLI rebuild is a node start plus a fold; under load average 33 90 s were not enough. */
const LONG = { timeoutMs: 240_000 };

let db: TestDatabase;
let browser: Browser;
let setting: ConsoleSetting | undefined;
let withToken: string;

const text = async (page: Page, testid: string): Promise<string> => (await page.textContent(`[data-testid=${testid}]`)) ?? '';

beforeAll(async () => {
  setting = await consoleSetting('consoleacts');
  ({ db, browser } = setting);
  const startMsgx = setting.start;
  withToken = await startMsgx('all', { MSGX_ADMIN_TOKEN: TOKEN });
  // one decided message, so that a rebuild has a flight to fold
  const xml = await readFile(new URL('../../docs/examples/one-flight.xml', import.meta.url), 'utf8');
  const sent = await fetch(`${withToken}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml });
  expect(sent.status).toBeLessThan(300);
  await waitFor(async () => (await db.pool.query("SELECT 1 FROM flight_schd WHERE flid = '880001'")).rowCount === 1, { ...LONG, what: 'the flight projected' });
}, 300_000);

afterAll(async () => {
  await setting?.close();
});

describe('rebuild progress on the console', () => {
  it('a rebuild started from the CLI shows RUNNING with its progress, then DONE with its outcome', async () => {
    // Hold the flights checkpoint row: the CLI rebuild folds and writes everything, then waits at its switch.
    const holder = await db.pool.connect();
    const w = await openPage(browser, withToken);
    let cli: ReturnType<typeof spawnMsgx> | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT 1 FROM projection_checkpoint WHERE name = 'flights' FOR UPDATE");
      cli = spawnMsgx(['rebuild', 'flights', '--operator', 'carol'], { MSGX_DATABASE_URL: db.url, MSGX_LOG_LEVEL: 'warn' });
      await w.page.goto(`${withToken}/console#pipeline`);
      const row = await waitFor(async () => {
        const id = await w.page.getAttribute('tr.op.running', 'data-testid');
        return id && (await w.page.textContent(`[data-testid=${id}]`))?.includes('switch') ? id.replace('operation-', '') : null;
      }, { ...LONG, what: `the CLI rebuild RUNNING at its switch on the console (cli: ${cli.output()})` });
      expect(await text(w.page, `operation-${row}`)).toMatch(/rebuild-flights.*RUNNING.*carol/s);
      expect(await text(w.page, `operation-progress-${row}`)).toMatch(/switch (\d+)\/\1 \(100%\)/);
      expect(await w.page.$(`[data-testid=operation-progress-${row}] progress`)).not.toBeNull();
      if (SHOTS) await w.page.screenshot({ path: new URL('../../docs/console-operations.png', import.meta.url).pathname, fullPage: true });

      await holder.query('COMMIT');
      expect((await cli.exit).code, cli.output()).toBe(0);
      await waitFor(async () => (await text(w.page, `operation-state-${row}`)) === 'DONE', { ...LONG, what: 'DONE on the console' });
      expect(await text(w.page, `operation-${row}`)).toMatch(/rebuilt flights: \d+ events, 1 flights/);
      expect(w.foreign).toEqual([]);
      expect(w.problems).toEqual([]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
      if (cli && cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await w.context.close();
    }
  }, 300_000);
});
