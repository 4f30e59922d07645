/**
 * The offline GraphiQL and the operator console in headless Chromium, against a running msgx
 * (role all, writer + read API) on a test database: pages load nothing from other hosts and break
 * no CSP rule; the console shows the pipeline, updates the board live over the SSE subscription
 * when a message is decided, and its Replay button works with the admin token — an audited
 * decision naming the operator — and is refused without it. A second msgx (role api) without
 * MSGX_ADMIN_TOKEN hides the buttons and answers /admin with 404.
 * (The console's pictures in docs/ come from consoleDay.int.test.ts, on a realistic day.)
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { TestDatabase } from '../../../support/databases.ts';
import { waitFor } from '../../../support/waitFor.ts';
import { insertMessage } from '../../support/fixtures.ts';
import { openPage } from './browser.ts';
import { consoleSetting, type ConsoleSetting } from './consoleSetting.ts';

const TOKEN = 'ops:console-test-token-0123456789';

let db: TestDatabase;
let browser: Browser;
let setting: ConsoleSetting | undefined;

let withToken: string;
let withoutToken: string;

beforeAll(async () => {
  setting = await consoleSetting('console');
  ({ db, browser } = setting);
  const startMsgx = setting.start;
  // Operator work: one DEAD(EXHAUSTED) message for the Replay button (never in the mailbox: the pump ignores DEAD rows).
  const xml = await readFile(new URL('../../../../docs/examples/one-flight.xml', import.meta.url), 'utf8');
  for (const id of ['900', '901']) await insertMessage(db.pool, { id, xml, state: 'DEAD', errorClass: 'EXHAUSTED', lastError: 'INFRA (5 attempts): connection refused', attempts: 5 });
  await db.pool.query(`UPDATE proc_state SET cause_class = 'INFRA' WHERE msg_id IN (900, 901)`);
  withToken = await startMsgx('all', { MSGX_ADMIN_TOKEN: TOKEN });
  withoutToken = await startMsgx('api', {});
}, 300_000);

afterAll(async () => {
  await setting?.close();
});

describe('offline GraphiQL', () => {
  it('renders from msgx\'s own assets, loads nothing from other hosts and runs a query', async () => {
    const w = await openPage(browser, withToken);
    try {
      const res = await w.page.goto(`${withToken}/graphql`);
      expect(res!.headers()['content-type']).toMatch(/^text\/html/);
      expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
      await w.page.waitForSelector('.graphiql-container', { timeout: 90_000 });
      await w.page.waitForSelector('.graphiql-execute-button', { timeout: 90_000 });
      await w.page.click('.graphiql-execute-button');
      await waitFor(async () => (await w.page.textContent('.graphiql-response'))?.includes('"backlog"'), { timeoutMs: 90_000, what: 'a query result' });
      expect(w.foreign).toEqual([]);
      expect(w.requests.some((u) => u.endsWith('/assets/vendor/graphiql.min.js'))).toBe(true);
      expect(w.problems.filter((p) => /Content Security Policy|Refused/.test(p))).toEqual([]);
      expect(await w.page.textContent('body')).not.toContain('Loading GraphiQL');
    } finally {
      await w.context.close();
    }
  }, 240_000);
});

describe('console', () => {
  it('shows the pipeline, loading nothing from other hosts and breaking no CSP rule', async () => {
    const w = await openPage(browser, withToken);
    try {
      await w.page.goto(`${withToken}/console`);
      await w.page.waitForSelector('[data-testid=backlog]', { timeout: 90_000 });
      expect(await w.page.textContent('[data-testid=pipeline]')).toMatch(/Projections.*flights/s);
      expect(await w.page.textContent('body')).not.toContain('Loading the msgx console');
      expect(w.foreign).toEqual([]);
      expect(w.problems).toEqual([]);
    } finally {
      await w.context.close();
    }
  }, 240_000);

  it('leads GET / and /console/ to the console', async () => {
    for (const p of ['/', '/console/']) {
      const r = await fetch(`${withToken}${p}`, { redirect: 'manual' });
      expect(r.status).toBe(302);
      expect(r.headers.get('location')).toBe('/console');
    }
    const page = await fetch(`${withToken}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('msgx console');
  }, 60_000);

  it('updates the board live over the SSE subscription when a message is decided, and shows its audit trail', async () => {
    const w = await openPage(browser, withToken);
    try {
      await w.page.goto(`${withToken}/console#/board/2025-03-14`);
      await waitFor(async () => (await w.page.textContent('[data-testid=board-live]')) === 'live', { timeoutMs: 90_000, what: 'the subscription' });
      expect(await w.page.$('[data-testid=flight-990001]')).toBeNull();

      const xml = await readFile(new URL('../../../../docs/examples/one-flight.xml', import.meta.url), 'utf8');
      const sent = await fetch(`${withToken}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml });
      expect(sent.status).toBeLessThan(300);

      // no reload, no polling on the board: only the subscription brings the row
      await w.page.waitForSelector('[data-testid=flight-990001]', { timeout: 120_000 });
      expect(await w.page.textContent('[data-testid=flight-990001]')).toContain('CA1999');

      await w.page.goto(`${withToken}/console#/message/1`);
      await w.page.waitForSelector('[data-testid=raw-xml]', { timeout: 90_000 });
      expect(await w.page.textContent('[data-testid=message-state]')).toMatch(/SUCCEEDED/);
      expect(await w.page.textContent('[data-testid=message]')).toContain('Applied');

      await w.page.goto(`${withToken}/console#/flight/990001`);
      await w.page.waitForSelector('[data-testid=flight-state]', { timeout: 90_000 });
      expect(await w.page.textContent('[data-testid=flight-state]')).toContain('CA1999');
      expect(w.foreign).toEqual([]);
      expect(w.problems).toEqual([]);
    } finally {
      await w.context.close();
    }
  }, 300_000);

  it('Replay works with the admin token (an audited decision naming the operator) and is refused without it', async () => {
    // refused without the token, and with a wrong one
    const bare = await fetch(`${withToken}/admin/replay`, { method: 'POST', body: JSON.stringify({ class: 'EXHAUSTED', ids: ['901'] }) });
    expect(bare.status).toBe(401);
    const wrong = await fetch(`${withToken}/admin/replay`, { method: 'POST', headers: { authorization: 'Bearer ops:nope-nope-nope-nope-nope' }, body: '{}' });
    expect(wrong.status).toBe(401);

    const w = await openPage(browser, withToken);
    try {
      await w.page.goto(`${withToken}/console#problems`);
      await w.page.waitForSelector('[data-testid=replay-900]', { timeout: 90_000 });
      // the button without a token: refused, nothing replayed
      await w.page.click('[data-testid=replay-900]');
      await waitFor(async () => (await w.page.textContent('[data-testid=action-note]'))?.includes('replay refused'), { timeoutMs: 90_000, what: 'the refusal' });
      expect((await db.pool.query(`SELECT state FROM proc_state WHERE msg_id = 900`)).rows[0].state).toBe('DEAD');

      await w.page.fill('[data-testid=admin-token]', TOKEN);
      await w.page.fill('[data-testid=admin-operator]', 'alice');
      await w.page.click('[data-testid=admin-save]');
      await w.page.click('[data-testid=replay-900]');
      await waitFor(async () => (await w.page.textContent('[data-testid=action-note]'))?.includes('replayed 900 as console:ops/alice'), { timeoutMs: 90_000, what: 'the replay' });
      const { rows } = await db.pool.query<{ requested_by: string }>(
        `SELECT payload->>'requestedBy' AS requested_by FROM decision_event WHERE msg_id = 900 AND kind = 'ReplayRequested'`,
      );
      expect(rows).toEqual([{ requested_by: 'console:ops/alice' }]);
      expect(w.foreign).toEqual([]);
    } finally {
      await w.context.close();
    }
  }, 300_000);

  it('without MSGX_ADMIN_TOKEN the buttons are hidden and /admin is off', async () => {
    const off = await fetch(`${withoutToken}/admin/replay`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ class: 'EXHAUSTED' }) });
    expect(off.status).toBe(404);
    const w = await openPage(browser, withoutToken);
    try {
      await w.page.goto(`${withoutToken}/console#problems`);
      await w.page.waitForSelector('[data-testid=problem-901]', { timeout: 90_000 });
      expect(await w.page.$('[data-testid=replay-901]')).toBeNull();
      expect(await w.page.$('[data-testid=admin]')).toBeNull();
    } finally {
      await w.context.close();
    }
    expect((await db.pool.query(`SELECT state FROM proc_state WHERE msg_id = 901`)).rows[0].state).toBe('DEAD');
  }, 240_000);
});
