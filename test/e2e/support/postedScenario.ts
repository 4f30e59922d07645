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
import { runCheck } from '../../../src/consistency/runCheck.ts';
import { aidxRules } from '../../../src/domain/aidxOut/aidxMessage.ts';
import { systemClock } from '../../../src/platform/clock.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { rebuildFlights } from '../../../src/projections/rebuild/rebuildFlights.ts';
import { runRedecide } from '../../../src/write/redecide/runRedecide.ts';
import { checkScenario } from './scenarioRunner.ts';

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

/**
 * Redecide, verify and rebuild over the posted scenario: decided again nothing differs, the check
 * finds no mismatch, and a rebuild gives the scenario's expected flights again and sends nothing
 * (no new `msg_event` row matching `sentWhere`).
 */
export async function expectRedecideVerifyRebuildSame(run: PostedScenario, sentWhere = 'true'): Promise<void> {
  const { report } = await runRedecide(run.app.rt.pool, { from: { position: '0' } }, { cfg: run.app.rt.cfg });
  expect(report).toMatchObject({ differingMessages: [], differingFlights: [], replayableMessages: [] });
  expect(report.decided).toBeGreaterThanOrEqual(run.s.files.length);
  const check = await runCheck(run.db.pool, { selection: { kind: 'all' }, clock: systemClock, writebackGraceMs: 0, aidx: aidxRules(run.app.cfg)! });
  expect(check.mismatches).toEqual([]);
  const sent = async () => (await run.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM msg_event WHERE ${sentWhere}`)).rows[0]!.n;
  const before = await sent();
  expect((await rebuildFlights({ pool: run.app.rt.pool, clock: systemClock, log: silentLogger })).ok).toBe(true);
  await run.app.drained('after the rebuild');
  expect(await checkScenario(run.app.gql, run.s, run.ids)).toEqual([]);
  expect(await sent()).toBe(before);
}
