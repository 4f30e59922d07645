/**
 * End-to-end conformance: every scenario of the corpus (any folder with expect.json under
 * MSGX_CORPUS_DIR, default the vendored test/corpus; pending ones left out) through the whole assembled app —
 * CMINMSGS → ingest → pump → projectors → GraphQL — once posted to POST /cminmsgs/send (mailbox
 * emulated in PostgreSQL), once written as rows into real MariaDB CMINMSGS.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { activeScenarioNames, isPendingOutcome, readScenario } from '../support/corpusDir.ts';
import { startApp, type RunningApp } from '../support/testApp.ts';
import { checkScenario } from './support/scenarioRunner.ts';

const scenarios = activeScenarioNames();

interface Running {
  db: TestDatabase;
  my?: TestMailbox;
  app: RunningApp;
}
let running: Running | undefined;

async function start(label: string, withMysql: boolean): Promise<Running> {
  const [db, my] = await Promise.all([createTestDatabase(label), withMysql ? createTestMailbox(label) : Promise.resolve(undefined)]);
  const app = await startApp(db, { env: my ? { MSGX_MAILBOX_MYSQL_URL: my.url } : {} });
  return { db, my, app };
}

afterEach(async () => {
  const r = running;
  running = undefined;
  if (!r) return;
  await r.app.stop();
  await Promise.all([r.db.drop(), r.my?.drop()]);
});

it('finds the corpus', () => {
  expect(scenarios.length).toBeGreaterThan(0);
});

describe.each(scenarios)('corpus scenario %s', (name) => {
  it('via POST /cminmsgs/send', async () => {
    const s = readScenario(name);
    running = await start(`e2e${name.slice(0, 2)}`, false);
    const ids: string[] = [];
    for (const f of s.files) {
      const res = await fetch(`${running.app.base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: f.xml });
      expect(res.status, f.name).toBe(200);
      ids.push(((await res.json()) as { id: string }).id);
    }
    await running.app.drained(`${name} drained`);
    expect(await checkScenario(running.app.gql, s, ids, (file) => isPendingOutcome(name, file))).toEqual([]);
  });

  it('via rows in MariaDB CMINMSGS', async () => {
    const s = readScenario(name);
    running = await start(`e2em${name.slice(0, 2)}`, true);
    const ids: string[] = [];
    for (const f of s.files) {
      const [res] = await running.my!.pool.query('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, NOW())', [f.xml]);
      ids.push(String((res as { insertId: number | string }).insertId));
    }
    await running.app.drained(`${name} drained`);
    expect(await checkScenario(running.app.gql, s, ids, (file) => isPendingOutcome(name, file))).toEqual([]);
  });
});
