/**
 * A big decision never holds the writer's event loop (docs/projections.md "Big decisions"): the
 * flight projector writes a plan's flights and the outbox feeder makes its rows a slice at a time,
 * with a turn of the event loop between slices (src/platform/slicing.ts), so the pump, /healthz
 * and the writer lock's keepalive get the loop between them. Before, each projector folded and
 * rendered the whole plan between two of its statements, and the message sent after a 16 MiB plan
 * waited 18.6 s at load 8–14 (test/reliability/bigPlan.slow.test.ts measures the whole plan).
 *
 * Asserted structurally, not by timing: with an injected slicing, each projector turns at least
 * once per slice of the plan, and a good message sent while the flight projector is inside the
 * plan (held at one of its turns) is decided and committed before that projector has finished it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Runtime } from '../../src/platform/runtime.ts';
import type { Service } from '../../src/platform/service.ts';
import type { Slicing } from '../../src/platform/slicing.ts';
import { createProjectionServices } from '../../src/projections/projectionServices.ts';
import { fltr, schdXml } from '../domain/support/buildXml.ts';
import { fileDatabases } from '../support/fileDatabases.ts';
import { waitFor } from '../support/waitFor.ts';
import { estt } from '../write/support/messages.ts';
import { insertCminmsgs, startWriter, testRuntime, type Writer } from '../write/support/writeHarness.ts';

const FLIGHTS = 2_000;
const EVERY = 100;
const WAIT = { timeoutMs: 120_000, intervalMs: 50 };

const dbs = fileDatabases('bigslices');
let rt: Runtime;
let writer: Writer;
let projections: Service[] = [];

const scalar = async (sql: string, params: unknown[] = []): Promise<string | null> =>
  (await dbs.db.pool.query<{ v: string | null }>(sql, params)).rows[0]?.v ?? null;
const stateOf = (id: string) => scalar('SELECT state AS v FROM proc_state WHERE msg_id = $1', [id]);
const checkpoint = async (name: string) => BigInt((await scalar('SELECT position::text AS v FROM projection_checkpoint WHERE name = $1', [name])) ?? '0');

/** What the flight projector saw at its first turn: the good message sent from there, and the flights checkpoint when it was decided. */
const held: { goodId?: string; flightsCheckpoint?: bigint } = {};
const turns = { flights: 0, outbox: 0 };

/** The flight projector's turns: the first one sends the good message and waits, inside the plan, until the pump has decided it. */
const flightsSlicing: Slicing = {
  every: EVERY,
  async turn() {
    turns.flights += 1;
    if (turns.flights !== 1) return;
    held.goodId = await insertCminmsgs(dbs.my, estt(2, String(700_000), '14MAR251015'));
    await waitFor(async () => (await stateOf(held.goodId!)) === 'SUCCEEDED', { ...WAIT, what: 'the good message decided while the projector is inside the plan' });
    held.flightsCheckpoint = await checkpoint('flights');
  },
};
const outboxSlicing: Slicing = {
  every: EVERY,
  async turn() {
    turns.outbox += 1;
  },
};

beforeAll(async () => {
  rt = testRuntime(dbs.db, dbs.my);
  writer = await startWriter(rt);
  projections = createProjectionServices(rt, { sharedFold: writer.model, slicing: { flights: flightsSlicing, outbox: outboxSlicing } }).services;
  for (const s of projections) await s.start();
}, 60_000);
afterAll(async () => {
  for (const s of [...projections].reverse()) await s.stop();
  await writer?.stop();
  await rt?.close();
});

it(`a plan of ${FLIGHTS.toLocaleString('en')} flights is projected and fed a slice at a time; a message sent meanwhile is decided before the plan is projected`, { timeout: 300_000 }, async () => {
  const records = Array.from({ length: FLIGHTS }, (_, i) => fltr(String(700_000 + i), '14MAR250930'));
  const planId = await insertCminmsgs(dbs.my, schdXml('ADFT', records, { seqn: '1' }));
  await waitFor(async () => (await stateOf(planId)) === 'SUCCEEDED', { ...WAIT, what: 'the plan decided' });
  const planAt = BigInt((await scalar('SELECT decided_position::text AS v FROM proc_state WHERE msg_id = $1', [planId]))!);
  for (const name of ['flights', 'outbox']) {
    await waitFor(async () => (await checkpoint(name)) >= planAt, { ...WAIT, what: `the ${name} projector past the plan` });
  }

  // The good message was decided after the plan, while the flight projector was held inside it.
  expect(held.goodId).toBeDefined();
  const goodAt = BigInt((await scalar('SELECT decided_position::text AS v FROM proc_state WHERE msg_id = $1', [held.goodId]))!);
  expect(goodAt).toBeGreaterThan(planAt);
  expect(held.flightsCheckpoint).toBeLessThan(planAt);

  // One turn per slice: the flights in chunks of EVERY, the plan's outbox rows EVERY at a time.
  const rows = Number(await scalar('SELECT count(*)::text AS v FROM msg_event WHERE source_position = $1', [String(planAt)]));
  expect(rows).toBeGreaterThanOrEqual(2 * FLIGHTS);
  expect(turns.flights).toBeGreaterThanOrEqual(FLIGHTS / EVERY);
  expect(turns.outbox).toBeGreaterThanOrEqual(Math.floor(rows / EVERY));

  // Nothing lost: every flight in the read model, the good message's estimate on its flight.
  await waitFor(async () => (await checkpoint('flights')) >= goodAt, { ...WAIT, what: 'the flights projector past the good message' });
  expect(await scalar("SELECT count(*)::text AS v FROM flight_schd WHERE flid BETWEEN '700000' AND '701999'")).toBe(String(FLIGHTS));
  expect(await scalar("SELECT (estimated_time IS NOT NULL)::text AS v FROM flight_schd WHERE flid = '700000'")).toBe('true');
});
