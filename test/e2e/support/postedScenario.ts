/**
 * A vendored scenario (test/scenarios/<name>) posted to POST /cminmsgs/send one file at a time, in
 * order, through the assembled app on the test file's own database, and drained before the file's
 * tests run. The app is stopped after the file's last test.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { readScenario, type CorpusScenario } from '../../support/corpusDir.ts';
import type { TestDatabase } from '../../support/databases.ts';
import { fileDatabase } from '../../support/fileDatabase.ts';
import { startApp, type RunningApp } from '../../support/testApp.ts';

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));

export interface PostedScenario {
  readonly db: TestDatabase;
  readonly app: RunningApp;
  readonly s: CorpusScenario;
  /** The CMINMSGS ids the posts were given, in the scenario's file order. */
  readonly ids: readonly string[];
}

export function postedScenario(name: string, label: string, env: Readonly<Record<string, string>>): PostedScenario {
  const db = fileDatabase(label);
  const run = { db, ids: [] as string[] } as { db: TestDatabase; app: RunningApp; s: CorpusScenario; ids: string[] };
  beforeAll(async () => {
    run.s = readScenario(name, SCENARIOS);
    run.app = await startApp(db, { env });
    for (const f of run.s.files) {
      const res = await fetch(`${run.app.base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: f.xml });
      expect(res.status, f.name).toBe(200);
      run.ids.push(((await res.json()) as { id: string }).id);
    }
    await run.app.drained(`${name} drained`);
  }, 300_000);
  afterAll(async () => {
    await run.app?.stop();
  });
  return run;
}
