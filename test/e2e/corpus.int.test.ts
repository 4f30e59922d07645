/**
 * End-to-end conformance: every scenario of the corpus (any folder with expect.json under
 * MSGX_CORPUS_DIR, default the vendored test/corpus; pending ones left out) through the whole assembled app —
 * CMINMSGS → ingest → pump → projectors → GraphQL — once posted to POST /cminmsgs/send (mailbox
 * emulated in PostgreSQL), once written as rows into real MariaDB CMINMSGS.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assemble, type App } from '../../src/cli/assemble.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../src/platform/runtime.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { CORPUS_DIR, isPendingOutcome, PENDING_SCENARIOS } from '../support/corpusDir.ts';
import { waitFor } from '../support/waitFor.ts';
import { checkScenario, drained, httpGql, listScenarios, loadScenario } from './support/scenarioRunner.ts';

const scenarios = (await listScenarios(CORPUS_DIR)).filter((dir) => !PENDING_SCENARIOS.has(path.basename(dir)));

interface Running {
  db: TestDatabase;
  my?: TestMailbox;
  rt: Runtime;
  app: App;
  dataDir: string;
  base: string;
}
let running: Running | undefined;

async function startApp(label: string, withMysql: boolean): Promise<Running> {
  const [db, my] = await Promise.all([createTestDatabase(label), withMysql ? createTestMailbox(label) : Promise.resolve(undefined)]);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-e2e-'));
  const cfg = loadConfig({
    MSGX_DATABASE_URL: db.url,
    ...(my ? { MSGX_MAILBOX_MYSQL_URL: my.url } : {}),
    MSGX_DATA_DIR: dataDir,
    MSGX_HTTP_HOST: '127.0.0.1',
    MSGX_HTTP_PORT: '0',
    MSGX_BACKOFF_MS: '20',
    MSGX_MAX_ATTEMPTS: '3',
    MSGX_POLL_INTERVAL_MS: '50',
    MSGX_SCHD_FLUSH_MS: '50',
    MSGX_GAP_TIMEOUT_MS: '2000',
  });
  const rt = await openRuntime(cfg, silentLogger, { migrate: true });
  const app = await assemble(rt, { role: 'all', standby: false });
  await app.start();
  return { db, my, rt, app, dataDir, base: `http://127.0.0.1:${app.httpPort()}` };
}

afterEach(async () => {
  const r = running;
  running = undefined;
  if (!r) return;
  await r.app.stop();
  await r.rt.close();
  await Promise.all([r.db.drop(), r.my?.drop()]);
  await rm(r.dataDir, { recursive: true, force: true });
});

it('finds the corpus', () => {
  expect(scenarios.length).toBeGreaterThan(0);
});

describe.each(scenarios.map((dir) => [path.basename(dir), dir]))('corpus scenario %s', (name, dir) => {
  it('via POST /cminmsgs/send', async () => {
    const s = await loadScenario(dir);
    running = await startApp(`e2e${name.slice(0, 2)}`, false);
    const ids: string[] = [];
    for (const f of s.files) {
      const res = await fetch(`${running.base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: f.text });
      expect(res.status, f.name).toBe(200);
      ids.push(((await res.json()) as { id: string }).id);
    }
    const gql = httpGql(`${running.base}/graphql`);
    await waitFor(() => drained(gql), { timeoutMs: 60_000, what: `${name} drained` });
    expect(await checkScenario(gql, s, ids, (file) => isPendingOutcome(name, file))).toEqual([]);
  });

  it('via rows in MariaDB CMINMSGS', async () => {
    const s = await loadScenario(dir);
    running = await startApp(`e2em${name.slice(0, 2)}`, true);
    const ids: string[] = [];
    for (const f of s.files) {
      const [res] = await running.my!.pool.query('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, NOW())', [f.text]);
      ids.push(String((res as { insertId: number | string }).insertId));
    }
    const gql = httpGql(`${running.base}/graphql`);
    await waitFor(() => drained(gql), { timeoutMs: 60_000, what: `${name} drained` });
    expect(await checkScenario(gql, s, ids, (file) => isPendingOutcome(name, file))).toEqual([]);
  });
});
