import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { readCheckpoint } from '../../src/projections/checkpoint.ts';
import { createFlightProjector } from '../../src/projections/flightProjector.ts';
import { runBatch } from '../../src/projections/runBatch.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { runMsgx, spawnMsgx } from '../support/msgxProcess.ts';
import { buildLog } from './support/log.ts';

let db: TestDatabase;

/** The log's last position: each rebuild appends its RebuildRequested decision before it folds the log. */
async function logHead(): Promise<string> {
  const { rows } = await db.pool.query('SELECT last_position::text AS p FROM pipeline_lock WHERE id = 1');
  return rows[0].p;
}

beforeAll(async () => {
  db = await createTestDatabase('rebuildcli');
  await buildLog(db.pool, null);
  const p = createFlightProjector();
  while ((await runBatch(db.pool, p, { batchSize: 100, clock: new FakeClock() })).kind !== 'idle');
});
afterAll(async () => {
  await db.drop();
});

/**
 * Each test spawns `msgx` one to three times; on a loaded 2-core machine one node start alone took
 * 17 s (a usage error), so the 60 s default failed all four tests of a run. Generous, still bounded.
 */
const CLI_TIMEOUT = 300_000;

/** `msgx …` against the test database. */
const env = () => ({ MSGX_DATABASE_URL: db.url, MSGX_LOG_LEVEL: 'warn' });
const msgx = (args: string[]) => runMsgx(args, env());

async function tableOid(): Promise<string> {
  const { rows } = await db.pool.query("SELECT 'public.flight_schd'::regclass::oid::text AS oid");
  return rows[0].oid;
}

describe('msgx rebuild', () => {
  it('rebuilds flights, printing progress to stderr and a summary to stdout', async () => {
    const before = await tableOid();
    const run = await msgx(['rebuild', 'flights', '--operator', 'erin']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/rebuild flights: replay \d+\/\d+ .* ev\/s, ETA/);
    const head = await logHead();
    const audit = await db.pool.query("SELECT position::text, payload FROM decision_event WHERE kind = 'RebuildRequested'");
    expect(audit.rows).toEqual([{ position: head, payload: { projection: 'flights', requestedBy: 'erin' } }]);
    expect(run.stdout).toMatch(new RegExp(`rebuilt flights: ${head} events, \\d+ flights, up to position ${head}`));
    expect(await tableOid()).not.toBe(before);
    expect(await readCheckpoint(db.pool, 'flights')).toBe(head);
  }, CLI_TIMEOUT);

  it('rebuilds reference alone, and every projection with no name', async () => {
    const ref = await msgx(['rebuild', 'reference']);
    expect(ref.code, ref.stderr).toBe(0);
    const head = await logHead();
    expect(ref.stdout).toMatch(new RegExp(`^rebuilt reference: \\d+ events, \\d+ records, \\d+ seasons, up to position ${head}`, 'm'));
    expect(await readCheckpoint(db.pool, 'reference')).toBe(head);
    const before = await tableOid();
    const all = await msgx(['rebuild']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^rebuilt flights: .*\nrebuilt reference: /m);
    expect(await tableOid()).not.toBe(before);
    expect(await readCheckpoint(db.pool, 'reference')).toBe(await logHead());
  }, CLI_TIMEOUT);

  it('folds on worker threads with --full --fold-workers 2 (the built worker module), the same rows', async () => {
    const rows = async () => (await db.pool.query('SELECT to_jsonb(f)::text AS r FROM flight_schd f ORDER BY flid')).rows;
    const before = await rows();
    const run = await msgx(['rebuild', 'flights', '--full', '--fold-workers', '2']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/rebuilt flights: \d+ events, \d+ flights, .* from position 0/);
    expect(await rows()).toEqual(before);
    const bad = await msgx(['rebuild', 'flights', '--fold-workers', '1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fold-workers must be a whole number 2-16/);
  }, CLI_TIMEOUT);

  it('refuses to rebuild the outbox and unknown names', async () => {
    const outbox = await msgx(['rebuild', 'outbox']);
    expect(outbox.code).toBe(2);
    expect(outbox.stderr).toMatch(/outbox feeder is never rebuilt/);
    const unknown = await msgx(['rebuild', 'boards']);
    expect(unknown.code).toBe(2);
  }, CLI_TIMEOUT);

  it('cancels on SIGINT: exit 130, live tables untouched, no scratch schema left', async () => {
    const before = await tableOid();
    const p = spawnMsgx(['rebuild', 'flights', '--page-size', '1'], env());
    await p.waitForLine('replay 0/', { stream: 'stderr' });
    p.kill('SIGINT');
    expect((await p.exit).code, p.stderr()).toBe(130);
    expect(p.stderr()).toMatch(/rebuild cancelled: scratch tables dropped, live tables untouched/);
    expect(await tableOid()).toBe(before);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'msgx_rebuild'");
    expect(rows[0].n).toBe(0);
  }, CLI_TIMEOUT);
});
