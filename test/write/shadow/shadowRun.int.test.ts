/**
 * Shadow run and cut-over (docs/contract/design.md §11) against real MariaDB: corpus 01
 * inserted into CMINMSGS is decided by `assemble(…, { shadow: true })` — the composition root of
 * `msgx start --shadow` — with nothing written back to CMINMSGS, nothing inserted into COUTMSGS
 * (also for `msgx request-plan` and the daily request), Kafka records only in `shadow.`-prefixed
 * NDJSON files, and "shadow" in /readyz, pipeline and /metrics. Then the cut-over: a restart
 * without --shadow keeps every flight, writes back only the row inserted afterwards, and sends
 * only its records to the production topics.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assemble, type App } from '../../../src/cli/assemble.ts';
import { requestPlanCommand } from '../../../src/cli/requestPlanCommand.ts';
import { requestReferenceCommand } from '../../../src/cli/requestReferenceCommand.ts';
import { loadConfig } from '../../../src/platform/config.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../../src/platform/runtime.ts';
import { checkWritebacks } from '../../../src/consistency/writebackCheck.ts';
import { ShadowRefused } from '../../../src/write/shadow/runModeChange.ts';
import { CORPUS_DIR, readScenario } from '../../support/corpusDir.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../../support/databases.ts';
import { waitFor } from '../../support/waitFor.ts';
import { drained, httpGql, type Gql } from '../../e2e/support/scenarioRunner.ts';
import { insertCminmsgs } from '../support/writeHarness.ts';

let db: TestDatabase;
let my: TestMailbox;
let dataDir: string;
const ids: string[] = [];

const env = () => ({
  MSGX_DATABASE_URL: db.url,
  MSGX_MAILBOX_MYSQL_URL: my.url,
  MSGX_DATA_DIR: dataDir,
  MSGX_HTTP_HOST: '127.0.0.1',
  MSGX_HTTP_PORT: '0',
  MSGX_POLL_INTERVAL_MS: '50',
  MSGX_SCHD_FLUSH_MS: '50',
  MSGX_BACKOFF_MS: '20',
  MSGX_REQUEST_PLAN_DAILY_AT: '00:00', // due at once: in shadow it must be recorded, not sent
});

interface Running {
  rt: Runtime;
  app: App;
  base: string;
  gql: Gql;
  stop(): Promise<void>;
}

async function start(shadow: boolean, extra: Record<string, string> = {}): Promise<Running> {
  const cfg = loadConfig({ ...env(), ...extra });
  const rt = await openRuntime(cfg, silentLogger, { migrate: true });
  let app: App | undefined;
  try {
    app = await assemble(rt, { role: 'all', standby: false, shadow });
    await app.start();
  } catch (err) {
    await app?.stop();
    await rt.close();
    throw err;
  }
  const base = `http://127.0.0.1:${app.httpPort()}`;
  return { rt, app, base, gql: httpGql(`${base}/graphql`), async stop() { await app.stop(); await rt.close(); } };
}

async function cminmsgs(): Promise<{ id: string; status: string | null; processed: string | null }[]> {
  const [rows] = await my.pool.query('SELECT CMINMSGS_ID AS id, CMINMSGS_STATUS AS status, CMINMSGS_DATE_PROCESSED AS processed FROM CMINMSGS ORDER BY CMINMSGS_ID');
  return (rows as { id: string | number; status: string | null; processed: string | null }[]).map((r) => ({ ...r, id: String(r.id) }));
}

async function coutmsgsCount(where = 'TRUE'): Promise<number> {
  const [rows] = await my.pool.query(`SELECT count(*) AS n FROM COUTMSGS WHERE ${where}`);
  return Number((rows as { n: number | string }[])[0]!.n);
}

/** NDJSON topic files and their lines. */
async function topicFiles(): Promise<Record<string, string[]>> {
  const dir = path.join(dataDir, 'out');
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: Record<string, string[]> = {};
  for (const n of names.sort()) out[n] = (await readFile(path.join(dir, n), 'utf8')).split('\n').filter(Boolean);
  return out;
}

const BOARD = '{ flights(operationDay: "2025-03-14", includeDeleted: true) { totalCount edges { node { flid deleted estimatedTime currentStand stateVersion } } } }';

async function settled(r: Running): Promise<void> {
  await waitFor(() => drained(r.gql), { timeoutMs: 60_000, what: 'drained' });
  // Every outbox row delivered (the Kafka targets write NDJSON files here).
  await waitFor(async () => {
    const { rows } = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM msg_event WHERE state = 'PENDING' AND target <> 'COUTMSGS'");
    return rows[0]!.n === 0;
  }, { timeoutMs: 30_000, what: 'outbox delivered' });
}

beforeAll(async () => {
  [db, my] = await Promise.all([createTestDatabase('shadow'), createTestMailbox('shadow')]);
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-shadow-'));
  const s = readScenario('01-plan-and-operations');
  for (const f of s.files) ids.push(await insertCminmsgs(my, f.xml));
});
afterAll(async () => {
  await Promise.all([db?.drop(), my?.drop()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('shadow run against MariaDB, then cut-over', () => {
  let board: unknown;
  let shadowFiles: Record<string, string[]>;
  let lastShadowPosition: string;

  it('refuses a configuration that cannot be shadowed safely, with the reason, before it touches anything', async () => {
    const err = await start(true, { MSGX_ESDB_URL: 'esdb://127.0.0.1:1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShadowRefused);
    expect((err as Error).message).toMatch(/MSGX_ESDB_URL is set/);
    const { rows } = await db.pool.query('SELECT shadow FROM run_mode');
    expect(rows[0].shadow).toBe(false);
  });

  it('decides corpus 01 with nothing written to CMINMSGS or COUTMSGS, prefixed topic files only, and says shadow everywhere', async () => {
    const r = await start(true);
    try {
      await settled(r);
      const states = await db.pool.query<{ state: string; backfill_state: string | null }>('SELECT state, backfill_state FROM proc_state ORDER BY msg_id');
      expect(states.rows).toHaveLength(ids.length);
      expect(states.rows.every((p) => p.state !== 'PENDING' && p.state !== 'FAILED')).toBe(true);
      // No write-back, and none left pending to be replayed later.
      expect(states.rows.map((p) => p.backfill_state)).toEqual(ids.map(() => null));
      expect((await cminmsgs()).filter((c) => c.status !== null || c.processed !== null)).toEqual([]);
      // …which the consistency check (msgx verify, the sentinel) knows is no fault in shadow mode.
      expect((await checkWritebacks(db.pool, new Date(Date.now() + 60_000))).mismatches).toEqual([]);

      // Requests are recorded as decisions, never sent: the daily one and one from the CLI.
      const cli = await requestPlanCommand.run(['--from', '2025-03-15T00:00', '--to', '2025-03-15T23:59'], { cfg: r.rt.cfg, log: silentLogger });
      expect(cli).toBe(0);
      await waitFor(async () => (await db.pool.query("SELECT 1 FROM decision_event WHERE kind = 'PlanRequestRecorded' AND payload ? 'dailyFor'")).rowCount === 1, { what: 'the daily request recorded' });
      const recorded = await db.pool.query("SELECT payload FROM decision_event WHERE kind = 'PlanRequestRecorded' ORDER BY position");
      expect(recorded.rows).toHaveLength(2);
      expect(recorded.rows.every((x) => x.payload.sent === false)).toBe(true);
      // …and a reference request too (its kinds and the operator on record, nothing sent)
      expect(await requestReferenceCommand.run(['--kind', 'AIRL', '--operator', 'gina'], { cfg: r.rt.cfg, log: silentLogger })).toBe(0);
      const ref = await db.pool.query("SELECT payload FROM decision_event WHERE kind = 'ReferenceRequested'");
      expect(ref.rows.map((x) => x.payload)).toEqual([{ request: 'RQRD', kinds: ['AIRL'], sent: false, reason: expect.stringMatching(/^shadow mode/), requestedBy: 'gina' }]);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM req_track')).rows[0].n).toBe(0);
      expect(await coutmsgsCount()).toBe(0);

      // The compat entry would write CMINMSGS: refused.
      const post = await fetch(`${r.base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<MSG/>' });
      expect(post.status).toBe(403);
      expect(((await post.json()) as { error: string }).error).toMatch(/shadow mode/);

      const ready = (await (await fetch(`${r.base}/readyz`)).json()) as { mode: string };
      expect(ready.mode).toBe('shadow');
      const p = await r.gql('{ pipeline { mode shadow { active topicPrefix cutoverPosition } } }');
      expect(p.data.pipeline).toEqual({ mode: 'shadow', shadow: { active: true, topicPrefix: 'shadow.', cutoverPosition: null } });
      expect(await (await fetch(`${r.base}/metrics`)).text()).toMatch(/^msgx_shadow_mode 1$/m);
      expect(await r.app.mode()).toBe('shadow');

      shadowFiles = await topicFiles();
      expect(Object.keys(shadowFiles)).toEqual(['shadow.msg.ndjson', 'shadow.schd.ndjson']);
      expect(shadowFiles['shadow.msg.ndjson']!.length).toBeGreaterThan(10);
      board = (await r.gql(BOARD)).data;
      expect((board as { flights: { totalCount: number } }).flights.totalCount).toBeGreaterThan(0);
      lastShadowPosition = (await db.pool.query('SELECT last_position::text AS p FROM pipeline_lock')).rows[0].p;
    } finally {
      await r.stop();
    }
  });

  it('cut-over: a restart without --shadow keeps every flight, writes back only the new row, and sends only its records to production topics', async () => {
    // (No daily plan request now: a production writer would rightly send one to COUTMSGS.)
    const r = await start(false, { MSGX_REQUEST_PLAN_DAILY_AT: '' });
    try {
      await settled(r);
      expect((await r.gql(BOARD)).data).toEqual(board);
      const p = await r.gql('{ pipeline { mode shadow { active topicPrefix cutoverPosition } } }');
      expect(p.data.pipeline).toEqual({ mode: 'production', shadow: { active: false, topicPrefix: 'shadow.', cutoverPosition: lastShadowPosition } });
      expect(((await (await fetch(`${r.base}/readyz`)).json()) as { mode: string }).mode).toBe('production');
      expect((await db.pool.query("SELECT payload FROM decision_event WHERE kind = 'CutOver'")).rows).toEqual([
        { payload: expect.objectContaining({ cutoverPosition: lastShadowPosition, undecided: 0 }) },
      ]);

      // A new row after the cut-over (the watermark carries on): the only one written back.
      const estt = (await readFile(path.join(CORPUS_DIR, '01-plan-and-operations', '002-estt.xml'), 'utf8')).replace('<SEQN>200001</SEQN>', '<SEQN>290001</SEQN>').replace('14MAR250918', '14MAR250925');
      const newId = await insertCminmsgs(my, estt);
      await waitFor(async () => (await cminmsgs()).some((c) => c.id === newId && c.status !== null), { timeoutMs: 30_000, what: 'the new row written back' });
      await settled(r);
      const written = (await cminmsgs()).filter((c) => c.status !== null || c.processed !== null);
      expect(written.map((c) => [c.id, c.status])).toEqual([[newId, 'PROCESSED']]);
      await waitFor(async () => (await db.pool.query("SELECT 1 FROM proc_state WHERE backfill_state = 'PENDING'")).rowCount === 0, { what: 'write-back DONE' });
      expect((await checkWritebacks(db.pool, new Date(Date.now() + 60_000))).mismatches).toEqual([]);
      // The plan requests recorded in shadow are not sent after the cut-over either (production may
      // send its own requests now, e.g. for reference data).
      expect(await coutmsgsCount("COUTMSGS_CLOB_MSG LIKE '%<TYPE>RQFD</TYPE>%'")).toBe(0);

      // Shadow records were not re-sent anywhere; production topics carry only the new decision.
      const files = await topicFiles();
      expect(files['shadow.msg.ndjson']).toEqual(shadowFiles['shadow.msg.ndjson']);
      const prodPositions = (files['msg.ndjson'] ?? []).map((l) => BigInt((JSON.parse(l) as { headers: Record<string, string> }).headers['log-position']!));
      expect(prodPositions.length).toBeGreaterThan(0);
      expect(prodPositions.every((pos) => pos > BigInt(lastShadowPosition))).toBe(true);
      const flight = (await r.gql('{ flight(flid: "880001") { estimatedTime } }')).data.flight;
      expect(flight.estimatedTime).toMatch(/^2025-03-14T09:25/);
    } finally {
      await r.stop();
    }
  });

  it('a database that was cut over cannot go back to shadow: refused with the reason', async () => {
    const err = await start(true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShadowRefused);
    expect((err as Error).message).toMatch(/cut over to production at/);
  });
});
