/**
 * A big plan never holds the writer's event loop while the pump decides it (docs/projections.md
 * "Big decisions", docs/security.md §13): through the app's compat entry POST /cminmsgs/send, a
 * plan big enough for the decode worker is sent and a good message right behind it. The pump
 * judges, folds and writes out the plan's payload in slices (src/domain/steps.ts, runSliced) with
 * a turn of the event loop between them; at its first turn inside the plan, this test asks
 * /healthz and gets the answer while the plan is still undecided. Then the good message is decided
 * right behind the plan, and nothing is lost. Asserted by order and progress, not by timing (the
 * bench figure `bigplan` measures the 5 s and 1 s bounds).
 *
 * The projectors read the plan's changes one row per change (no 29 MB JSON.parse in the driver):
 * the same changes as the whole payload read at once.
 *
 * Before the slicing the plan's judge, fold and stage ran as one task: there was no turn, and a
 * 70,000-record plan held /healthz for 8–15 s at load 10.
 */
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fltr, schdXml } from '../domain/support/buildXml.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { startApp, type RunningApp } from '../support/testApp.ts';
import { waitFor } from '../support/waitFor.ts';
import { estt } from '../write/support/messages.ts';
import { readDecisionRange, readDecisionsAfter } from '../../src/log/readDecisions.ts';

const RECORDS = 6_000;
const FIRST_FLID = 800_000;
const WAIT = { timeoutMs: 120_000, intervalMs: 50 };

let db: TestDatabase;
let app: RunningApp;
let planId: string | undefined;

/** What the pump's first turn inside the plan saw: /healthz's answer and the plan's state then. */
const atFirstTurn: { health?: number; planState?: string | null; error?: string } = {};
let turns = 0;

const scalar = async (sql: string, params: unknown[] = []): Promise<string | null> =>
  (await db.pool.query<{ v: string | null }>(sql, params)).rows[0]?.v ?? null;
const stateOf = (id: string) => scalar('SELECT state AS v FROM proc_state WHERE msg_id = $1', [id]);

beforeAll(async () => {
  db = await createTestDatabase('bigplanhealth');
  app = await startApp(db, {
    // Parking is not what is tested here (test/reliability/pumpBudget).
    env: { MSGX_DECODE_BUDGET_MS: '300000', MSGX_HEAD_STALL_READY_MS: '600000' },
    bigHeadSlicing: {
      sliceMs: 0, // a turn at every step of the plan
      async turn() {
        turns += 1;
        if (turns !== 1) return;
        atFirstTurn.health = await healthStatus().catch((err: unknown) => {
          atFirstTurn.error = String(err); // named by the assertion below
          return undefined;
        });
        atFirstTurn.planState = planId === undefined ? null : await stateOf(planId);
      },
    },
  });
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

/**
 * GET /healthz on a connection of its own (agent: false), as a probe does: fetch's pooled
 * keep-alive socket from the posts before may be one the server is closing just then, which under
 * load failed the request before it reached the server.
 */
function healthStatus(): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    http.get(`${app.base}/healthz`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}

async function post(xml: string): Promise<string> {
  const res = await fetch(`${app.base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml });
  const body = (await res.json()) as { id?: string; error?: string };
  expect(res.status, body.error).toBe(200);
  return body.id!;
}

it(`a plan of ${RECORDS.toLocaleString('en')} records posted to /cminmsgs/send is decided in slices: /healthz answers inside it, the good message behind it is decided`, { timeout: 180_000 }, async () => {
  const records = Array.from({ length: RECORDS }, (_, i) => fltr(String(FIRST_FLID + i), '14MAR250930'));
  const plan = schdXml('ADFT', records, { seqn: '1' });
  expect(plan.length).toBeGreaterThan(64 * 1024); // a big head: decoded in the worker, decided in slices
  planId = await post(plan);
  const goodId = await post(estt(2, String(FIRST_FLID), '14MAR251015'));

  // One read per probe: two reads could straddle the ingest (null, then PENDING) and pass early.
  await waitFor(async () => {
    const state = await stateOf(goodId);
    return state !== null && state !== 'PENDING';
  }, { ...WAIT, what: 'the good message decided' });

  // The plan first (its reason if not), then: /healthz was answered at the pump's first turn inside it, before it was decided.
  expect(await stateOf(planId), String(await scalar('SELECT last_error AS v FROM proc_state WHERE msg_id = $1', [planId]))).toBe('SUCCEEDED');
  expect(atFirstTurn.health, atFirstTurn.error).toBe(200);
  expect(atFirstTurn.planState).toBe('PENDING');
  // Judge, fold and payload text each turned many times (a step is STEP_UNITS records or changes).
  expect(turns).toBeGreaterThanOrEqual((3 * RECORDS) / 256 - 3);

  // The good message right behind the plan, applied to a flight the plan created; nothing lost.
  expect(await stateOf(planId)).toBe('SUCCEEDED');
  expect(await stateOf(goodId)).toBe('SUCCEEDED');
  const position = async (id: string) => BigInt((await scalar('SELECT decided_position::text AS v FROM proc_state WHERE msg_id = $1', [id]))!);
  expect(await position(goodId)).toBeGreaterThan(await position(planId));
  await app.drained('the plan projected');
  const at = String((await position(planId)) - 1n);
  const [event] = await readDecisionsAfter(db.pool, at, 1);
  const [record] = await readDecisionRange(db.pool, at, String(await position(planId)));
  expect(record?.kind).toBe('Applied');
  expect(event?.changes).toHaveLength(RECORDS);
  expect(event?.changes).toEqual(record?.kind === 'Applied' ? record.payload.changes : undefined);
  expect(await scalar(`SELECT count(*)::text AS v FROM flight_schd WHERE flid::bigint BETWEEN ${FIRST_FLID} AND ${FIRST_FLID + RECORDS - 1}`)).toBe(String(RECORDS));
  expect(await scalar('SELECT (estimated_time IS NOT NULL)::text AS v FROM flight_schd WHERE flid = $1', [String(FIRST_FLID)])).toBe('true');
});
