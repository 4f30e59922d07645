/**
 * Operator progress (docs/operations.md) in headless Chromium: rebuild progress on the console whichever process runs it (a
 * `msgx rebuild` from the CLI beside the running service), and the operator buttons — Rebuild
 * flights, Request plan, Request reference — each calling /admin/* with the bearer token and each
 * leaving a decision that names the operator; refused without the token; hidden and off (404) on a
 * msgx without MSGX_ADMIN_TOKEN. MSGX_UPDATE_SCREENSHOTS=1 writes docs/console-operations.png.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { spawnMsgx } from '../../../support/msgxProcess.ts';
import type { TestDatabase } from '../../../support/databases.ts';
import { waitFor } from '../../../support/waitFor.ts';
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
let withoutToken: string;

const text = async (page: Page, testid: string): Promise<string> => (await page.textContent(`[data-testid=${testid}]`)) ?? '';
async function audited(kind: string): Promise<Record<string, unknown>[]> {
  const { rows } = await db.pool.query<{ payload: Record<string, unknown> }>(
    "SELECT payload FROM decision_event WHERE kind = $1 AND payload->>'requestedBy' LIKE 'console:%' ORDER BY position",
    [kind],
  );
  return rows.map((r) => r.payload);
}

beforeAll(async () => {
  setting = await consoleSetting('consoleacts');
  ({ db, browser } = setting);
  const startMsgx = setting.start;
  // no reference requests of its own at start: the only req_track rows are the buttons'
  withToken = await startMsgx('all', { MSGX_ADMIN_TOKEN: TOKEN, MSGX_REQUEST_REFERENCE_AT_START: 'false' });
  withoutToken = await startMsgx('api', {});
  // one decided message, so that a rebuild has a flight to fold
  const xml = await readFile(new URL('../../../../docs/examples/one-flight.xml', import.meta.url), 'utf8');
  const sent = await fetch(`${withToken}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml });
  expect(sent.status).toBeLessThan(300);
  await waitFor(async () => (await db.pool.query("SELECT 1 FROM flight_schd WHERE flid = '990001'")).rowCount === 1, { ...LONG, what: 'the flight projected' });
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
      if (SHOTS) await w.page.screenshot({ path: new URL('../../../../docs/console-operations.png', import.meta.url).pathname, fullPage: true });

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

describe('operator buttons', () => {
  it('Rebuild, Request plan and Request reference are refused without the token and recorded with it, naming the operator', async () => {
    const w = await openPage(browser, withToken);
    try {
      await w.page.goto(`${withToken}/console#pipeline`);
      await w.page.waitForSelector('[data-testid=admin]', { timeout: 90_000 });
      await w.page.fill('[data-testid=admin-from]', '2025-03-15T00:00');
      await w.page.fill('[data-testid=admin-to]', '2025-03-15T23:59');
      await w.page.fill('[data-testid=admin-kinds]', 'airl,ARPT');

      // no token typed in yet: every button is refused, nothing is recorded
      for (const [button, refusal] of [['rebuild', 'rebuild refused'], ['request-plan', 'plan request refused'], ['request-reference', 'reference request refused']] as const) {
        await w.page.click(`[data-testid=${button}]`);
        await waitFor(async () => (await text(w.page, 'admin-note')).includes(refusal), { ...LONG, what: refusal });
      }
      for (const kind of ['RebuildRequested', 'PlanRequested', 'ReferenceRequested']) expect(await audited(kind)).toEqual([]);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM req_track')).rows[0].n).toBe(0);

      await w.page.fill('[data-testid=admin-token]', TOKEN);
      await w.page.fill('[data-testid=admin-operator]', 'alice');
      await w.page.click('[data-testid=admin-save]');

      await w.page.click('[data-testid=rebuild]');
      await waitFor(async () => /rebuild of flights started .* by console:ops\/alice/.test(await text(w.page, 'admin-note')), { ...LONG, what: 'the rebuild started' });
      expect(await audited('RebuildRequested')).toEqual([{ projection: 'flights', requestedBy: 'console:ops/alice' }]);
      // its progress comes back through the read API like any other
      await waitFor(async () => /rebuild-flights\s*DONE.*console:ops\/alice/s.test(await text(w.page, 'pipeline')), { ...LONG, what: 'the console rebuild DONE' });

      await w.page.click('[data-testid=request-plan]');
      await waitFor(async () => /plan request MSGX-RQ\d+-\w+ for 2025-03-15T00:00:00\+08:00 .* by console:ops\/alice/.test(await text(w.page, 'admin-note')), { ...LONG, what: 'the plan request' });
      const [plan] = await audited('PlanRequested');
      expect(plan).toMatchObject({
        request: 'RQFD', requestedBy: 'console:ops/alice',
        changes: [{ type: 'PlanRequested', windowStart: '2025-03-14T16:00:00.000Z', windowEnd: '2025-03-15T15:59:00.000Z' }],
      });
      const tracked = await db.pool.query("SELECT req_id::text AS id, mgid FROM req_track WHERE kind = 'RQFD'");
      expect(tracked.rows).toEqual([{ id: plan!.reqId, mgid: (plan!.changes as { mgid: string }[])[0]!.mgid }]);

      await w.page.click('[data-testid=request-reference]');
      await waitFor(async () => /reference request for 2 kind\(s\).* by console:ops\/alice/.test(await text(w.page, 'admin-note')), { ...LONG, what: 'the reference request' });
      const [ref] = await audited('ReferenceRequested');
      expect(ref).toMatchObject({ request: 'RQRD', kinds: ['AIRL', 'ARPT'], requestedBy: 'console:ops/alice' });
      const refs = await db.pool.query("SELECT ref_kind FROM req_track WHERE kind = 'RQRD' ORDER BY req_id");
      expect(refs.rows.map((r) => r.ref_kind)).toEqual(['AIRL', 'ARPT']);
      expect(w.foreign).toEqual([]);
      // the browser's own report of the three refusals, and nothing else
      expect(w.problems).toEqual(Array(3).fill('Failed to load resource: the server responded with a status of 401 (Unauthorized)'));
    } finally {
      await w.context.close();
    }
  }, 300_000);

  it('every action is refused without the bearer token, and off without MSGX_ADMIN_TOKEN (no buttons, 404)', async () => {
    for (const action of ['rebuild', 'request-plan', 'request-reference', 'replay']) {
      const bare = await fetch(`${withToken}/admin/${action}`, { method: 'POST', body: '{}' });
      expect(bare.status, action).toBe(401);
      const wrong = await fetch(`${withToken}/admin/${action}`, { method: 'POST', headers: { authorization: 'Bearer ops:wrong-wrong-wrong-wrong-wrong' }, body: '{}' });
      expect(wrong.status, action).toBe(401);
      const off = await fetch(`${withoutToken}/admin/${action}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{}' });
      expect(off.status, action).toBe(404);
    }
    const bad = await fetch(`${withToken}/admin/request-reference`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ kinds: 'AIRL,NOPE' }) });
    expect(bad.status).toBe(400);

    const w = await openPage(browser, withoutToken);
    try {
      await w.page.goto(`${withoutToken}/console#pipeline`);
      await w.page.waitForSelector('[data-testid=backlog]', { timeout: 90_000 });
      for (const id of ['admin', 'rebuild', 'request-plan', 'request-reference']) expect(await w.page.$(`[data-testid=${id}]`), id).toBeNull();
      // the read side still shows every operation, whoever started it
      expect(await text(w.page, 'pipeline')).toMatch(/rebuild-flights/);
    } finally {
      await w.context.close();
    }
  }, 240_000);
});
