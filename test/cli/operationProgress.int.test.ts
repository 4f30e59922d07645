/**
 * Operator progress (docs/operations.md): rebuild and redecide progress reaches the read API when they run from the CLI — a
 * process apart from any service. `msgx rebuild flights` held at its switch (the test holds the
 * flights checkpoint row) shows RUNNING with its counts in `operationProgress`, then DONE with the
 * outcome; `msgx redecide` shows DONE with its counts; both name the operator; a running row
 * whose process went silent reads STALLED; old rows drop out of the window.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { createFlightProjector } from '../../src/projections/flightProjector.ts';
import { runBatch } from '../../src/projections/runBatch.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { waitFor } from '../support/waitFor.ts';
import { buildLog } from '../projections/support/log.ts';
import { createHarness, type Harness } from '../read-api/support/harness.ts';

const PROGRESS = `query($hours: Int) { operationProgress(withinHours: $hours) {
  id kind detail startedBy host pid state phase done total percent message startedAt updatedAt finishedAt } }`;

interface Row {
  id: string;
  kind: string;
  detail: string | null;
  startedBy: string;
  pid: number;
  state: string;
  phase: string | null;
  done: number;
  total: number | null;
  percent: number | null;
  message: string | null;
  finishedAt: string | null;
}

const db = fileDatabase('opprogress');
let api: Harness;
let events: number;

const rows = async (hours?: number): Promise<Row[]> => {
  const r = await api.gql(PROGRESS, hours === undefined ? {} : { hours });
  if (r.errors) throw new Error(JSON.stringify(r.errors));
  return r.data!.operationProgress as Row[];
};
const env = () => ({ MSGX_DATABASE_URL: db.url, MSGX_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  events = (await buildLog(db.pool, null)).decisions.length;
  const p = createFlightProjector();
  while ((await runBatch(db.pool, p, { batchSize: 500, clock: new FakeClock() })).kind !== 'idle');
  api = createHarness(db.pool);
});

describe('operation progress through the read API', () => {
  it('a rebuild started from the CLI shows RUNNING with its counts while it runs, then DONE, audited with the operator', async () => {
    // Hold the flights checkpoint row: the rebuild replays and writes everything, then waits at its switch.
    const holder = await db.pool.connect();
    let cli: ReturnType<typeof spawnMsgx> | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT 1 FROM projection_checkpoint WHERE name = 'flights' FOR UPDATE");
      cli = spawnMsgx(['rebuild', 'flights', '--operator', 'carol'], env());
      const running = await waitFor(async () => (await rows()).find((r) => r.kind === 'rebuild-flights' && r.phase === 'switch'), {
        timeoutMs: 90_000,
        what: `the rebuild at its switch in operationProgress (output: ${cli.output()})`,
      });
      // the RebuildRequested decision comes first, so the rebuild folds it too
      expect(running).toMatchObject({ state: 'RUNNING', startedBy: 'carol', pid: cli.child.pid, done: events + 1, total: events + 1, percent: 100, finishedAt: null });
      const audit = await db.pool.query("SELECT payload FROM decision_event WHERE kind = 'RebuildRequested'");
      expect(audit.rows.map((r) => r.payload)).toEqual([{ projection: 'flights', requestedBy: 'carol' }]);
      await holder.query('COMMIT');
      expect((await cli.exit).code, cli.output()).toBe(0);
      const [done] = (await rows()).filter((r) => r.id === running.id);
      expect(done).toMatchObject({ state: 'DONE', phase: 'done', done: events + 1, total: events + 1 });
      expect(done!.finishedAt).not.toBeNull();
      expect(done!.message).toMatch(new RegExp(`^rebuilt flights: ${events + 1} events, \\d+ flights, up to position ${events + 1}`));
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
      if (cli && cli.child.exitCode === null) cli.child.kill('SIGKILL');
    }
  }, 180_000);

  it('msgx redecide records its counts and outcome, naming the operator', async () => {
    const cli = spawnMsgx(['redecide', '--from', '0', '--operator', 'dave', '--json'], env());
    expect((await cli.exit).code, cli.output()).toBe(0);
    const head = Number((await db.pool.query('SELECT last_position FROM pipeline_lock')).rows[0].last_position);
    const [row] = (await rows()).filter((r) => r.kind === 'redecide');
    expect(row).toMatchObject({ state: 'DONE', phase: 'decide', startedBy: 'dave', detail: '--from 0', pid: cli.child.pid, done: head, total: head, percent: 100 });
    expect(row!.message).toMatch(/^0 message\(s\) and 0 flight\(s\) differ \(report /);
  }, 120_000);

  it('a running row whose process fell silent reads STALLED; finished rows leave the default 24 h window', async () => {
    await db.pool.query(
      `INSERT INTO operation_progress (kind, started_by, host, pid, started_at, updated_at, done, total)
       VALUES ('rebuild-flights', 'killed', 'h', 1, now() - interval '10 minutes', now() - interval '2 minutes', 5, 10)`,
    );
    await db.pool.query(
      `INSERT INTO operation_progress (kind, started_by, host, pid, started_at, updated_at, finished_at, state, message)
       VALUES ('redecide', 'yesterday', 'h', 1, now() - interval '30 hours', now() - interval '30 hours', now() - interval '30 hours', 'done', 'old')`,
    );
    const recent = await rows();
    expect(recent.find((r) => r.startedBy === 'killed')).toMatchObject({ state: 'STALLED', done: 5, total: 10, percent: 50 });
    expect(recent.some((r) => r.startedBy === 'yesterday')).toBe(false);
    expect((await rows(48)).some((r) => r.startedBy === 'yesterday')).toBe(true);
    const bad = await api.gql(PROGRESS, { hours: 0 });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
