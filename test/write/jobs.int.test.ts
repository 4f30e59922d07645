import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import type { Runtime } from '../../src/platform/runtime.ts';
import { createJobs, type Jobs } from '../../src/write/jobs/jobsService.ts';
import { waitFor } from '../support/waitFor.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { MALFORMED_XML, adft, estt, unsupported } from './support/messages.ts';
import { insertCminmsgs, procStates, startWriter, testRuntime, type Writer } from './support/writeHarness.ts';

let db: TestDatabase;
let my: TestMailbox;
let rt: Runtime;
let w: Writer;
let jobs: Jobs;
const clock = new FakeClock('2025-03-14T02:00:00Z');
const ids: string[] = [];

beforeAll(async () => {
  [db, my] = await Promise.all([createTestDatabase('jobs'), createTestMailbox('jobs')]);
  for (const x of [adft(1, '886001'), adft(2, '886002', '15MAR250800'), estt(3, '886001', '14MAR250812'), MALFORMED_XML, unsupported(4, '886001')]) {
    ids.push(await insertCminmsgs(my, x));
  }
  rt = testRuntime(db, my, { clock, env: { MSGX_MAX_ATTEMPTS: '1', MSGX_ARCHIVE_AFTER_DAYS: '1', } });
  w = await startWriter(rt, { ingest: false });
  jobs = createJobs(rt);
  await w.ingest.pollOnce();
  await w.pump.drained();
  await w.backfill.runOnce();
});
afterAll(async () => {
  await w?.stop();
  await rt?.close();
  await Promise.all([db?.drop(), my?.drop()]);
});

describe('housekeeping jobs', () => {
  it('archives terminal proc_state older than MSGX_ARCHIVE_AFTER_DAYS, keeps PARKED for replay, and identities stay bound', async () => {
    expect((await jobs.runOnce()).archived).toBe(0);
    clock.advance(86_400_000 + 1);
    const r = await jobs.runOnce();
    expect(r).toMatchObject({ archived: 4, vacuumed: false }); // far fewer than VACUUM_AFTER_ROWS
    expect((await procStates(db)).map((p) => [p.msg_id, p.state])).toEqual([[ids[4], 'PARKED']]);
    const hst = await db.pool.query('SELECT msg_id, state, identity_key, archived_at FROM proc_state_hst ORDER BY msg_id');
    expect(hst.rows.map((x) => x.msg_id)).toEqual(ids.slice(0, 4));
    expect(hst.rows[2]).toMatchObject({ state: 'SUCCEEDED', identity_key: 'AODB|FLOP|ESTT|3' });
    // raw XML stays
    expect((await db.pool.query('SELECT count(*)::int AS n FROM inbox_message')).rows[0].n).toBe(5);

    // A later duplicate of an archived message is still recognised.
    const dup = await insertCminmsgs(my, estt(3, '886001', '14MAR250850'));
    await w.ingest.pollOnce();
    await w.pump.drained();
    expect((await procStates(db)).find((p) => p.msg_id === dup)).toMatchObject({ state: 'SKIPPED', last_error: `duplicate-of:${ids[2]}` });
  });
});

describe('housekeeping after a run that moved many rows', () => {
  const lastVacuum = async (): Promise<Date | null> =>
    (await db.pool.query<{ at: Date | null }>(`SELECT last_vacuum AS at FROM pg_stat_user_tables WHERE relname = 'proc_state'`)).rows[0]!.at;

  it('vacuums proc_state once a run moved at least vacuumAfter rows, and not when it moved fewer', async () => {
    // Whatever the tests before left due is moved first.
    clock.advance(86_400_000 + 1);
    await jobs.runOnce();
    const id = await insertCminmsgs(my, estt(20, '886002', '15MAR250830'));
    await w.ingest.pollOnce();
    await w.pump.drained();
    await w.backfill.runOnce();
    clock.advance(86_400_000 + 1);
    const vacuumedBefore = await lastVacuum();
    expect(await createJobs(rt, { vacuumAfter: 2 }).runOnce()).toMatchObject({ archived: 1, vacuumed: false });
    expect(await lastVacuum()).toEqual(vacuumedBefore);

    const more = [await insertCminmsgs(my, estt(21, '886002', '15MAR250831')), await insertCminmsgs(my, estt(22, '886002', '15MAR250832'))];
    await w.ingest.pollOnce();
    await w.pump.drained();
    await w.backfill.runOnce();
    clock.advance(86_400_000 + 1);
    expect(await createJobs(rt, { vacuumAfter: 2 }).runOnce()).toMatchObject({ archived: 2, vacuumed: true });
    expect(await lastVacuum()).not.toEqual(vacuumedBefore);
    expect((await procStates(db)).filter((p) => [id, ...more].includes(p.msg_id))).toEqual([]);
  });
});

describe('housekeeping vacuum and a stop', () => {
  it('a stop cancels the VACUUM a run is in (here waiting behind a lock), and the run ends not vacuumed', async () => {
    const holder = await db.pool.connect();
    try {
      // VACUUM takes SHARE UPDATE EXCLUSIVE: held here, it waits as a long VACUUM would run.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE proc_state IN SHARE UPDATE EXCLUSIVE MODE');
      const stopping = new AbortController();
      const run = createJobs(rt, { vacuumAfter: 0 }).runOnce(stopping.signal);
      await waitFor(async () => {
        const { rows } = await db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'VACUUM (ANALYZE) proc_state' AND wait_event_type = 'Lock'`,
        );
        return rows[0]!.n === 1;
      });
      stopping.abort();
      expect(await run).toMatchObject({ vacuumed: false });
      const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'VACUUM (ANALYZE) proc_state' AND state = 'active'`);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });
});

describe('housekeeping at a start: after the first decisions, and never holding a stop', () => {
  /** A message decided and written back, then made due for the archive by the clock: its id. */
  async function due(seq: number): Promise<string> {
    const id = await insertCminmsgs(my, estt(seq, '886002', '15MAR250815'));
    await w.ingest.pollOnce();
    await w.pump.drained();
    await w.backfill.runOnce();
    clock.advance(86_400_000 + 1);
    return id;
  }
  const live = async (id: string) => (await procStates(db)).some((p) => p.msg_id === id);

  it('the first run waits for what waited at the start to be decided, then archives', async () => {
    const id = await due(10);
    let settle!: () => void;
    const settled = new Promise<void>((r) => (settle = r));
    let asked = false;
    const later = createJobs(rt, {
      settled: () => {
        asked = true;
        return settled;
      },
    });
    await later.start();
    try {
      // The first run asks, waits, and has moved nothing yet.
      await waitFor(() => asked, { what: 'the first run waiting' });
      expect(await live(id)).toBe(true);
      settle();
      await waitFor(async () => !(await live(id)), { what: 'the row archived once settled' });
    } finally {
      await later.stop();
    }
  });

  it('a stop during that wait ends at once and moves nothing; a run stops between batches', async () => {
    const id = await due(11);
    let asked = false;
    const never = createJobs(rt, {
      settled: () => {
        asked = true;
        return new Promise<void>(() => undefined);
      },
    });
    await never.start();
    await waitFor(() => asked, { what: 'the first run waiting' });
    await never.stop(); // resolves without the clock moving and without settled
    expect(await live(id)).toBe(true);
    // A run whose stop has come archives no further batch.
    expect((await createJobs(rt).runOnce(AbortSignal.abort())).archived).toBe(0);
    expect(await live(id)).toBe(true);
  });
});
