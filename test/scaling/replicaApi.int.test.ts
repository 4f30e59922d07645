/**
 * The read API on a real PostgreSQL streaming replica (docs/scaling.md "Read API replicas"): a writer
 * (role all) on the primary decides messages; `msgx start --role api` with MSGX_READ_DATABASE_URL on
 * a `pg_basebackup -R` replica answers flights, flight, flightHistory, message and the console's
 * pipeline exactly as the primary does once the replica has replayed the primary's WAL. A hot standby
 * refuses every write ("cannot execute … in a read-only transaction"), so each answer without errors
 * shows that the code path behind it does not write; the read pool is also read-only by its session
 * default on any server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { spawnMsgx, type MsgxProcess } from '../support/msgxProcess.ts';
import { freePort, startReplica, type TestReplica } from '../support/replica.ts';
import { startApp, type RunningApp } from '../support/testApp.ts';
import { waitFor } from '../support/waitFor.ts';
import { httpGql, type Gql } from '../e2e/support/scenarioRunner.ts';
import { adft, estt, stnd } from '../write/support/messages.ts';
import { subscribeSse } from '../read-api/support/sse.ts';

let db: TestDatabase;
let writer: RunningApp;
let replica: TestReplica;
let api: MsgxProcess;
let apiGql: Gql;
let apiBase: string;
let ids: string[];
const READY_LAG_MS = 1000;
const REPLICA = '{ pipeline { logPosition replica { positions seconds replayedLsn replayPaused } } }';
const readyz = async () => (await fetch(`${apiBase}/readyz`)).status;

const FLIGHT = `flid ffid operationDay airline flightNo direction scheduledTime estimatedTime currentStand status deleted stateVersion lastPosition`;
const queries = (msgIds: readonly string[]): Record<string, string> => ({
  board: `{ flights(operationDay: "2025-03-14", first: 50) { totalCount edges { cursor node { ${FLIGHT} } } pageInfo { hasNextPage endCursor } } }`,
  flight: `{ a: flight(flid: "886001") { ${FLIGHT} stands { seq code } } b: flight(flid: "886002") { ${FLIGHT} } }`,
  flightHistory: `{ flightHistory(flid: "886001") { edges { cursor node { position msgId kind handler flids changes { type flid data } recordedAt payload } } pageInfo { hasNextPage endCursor } } }`,
  message: `{ ${msgIds.map((id, i) => `m${i}: message(id: "${id}") { id sender type subtype seqn identityKey state attempts receivedAt rawXml decisions { position kind } deliveries { target state sourcePosition flid } }`).join(' ')} }`,
  pipeline: '{ pipeline { mode inboxWatermark backlog failed dead parked logPosition projections { name } } }',
});

async function sameAnswers(): Promise<void> {
  for (const [name, q] of Object.entries(queries(ids))) {
    const [fromPrimary, fromReplica] = await Promise.all([writer.gql(q), apiGql(q)]);
    expect(fromPrimary.errors, `${name} on the primary`).toBeUndefined();
    expect(fromReplica.errors, `${name} on the replica`).toBeUndefined();
    expect(fromReplica.data, name).toEqual(fromPrimary.data);
  }
}

beforeAll(async () => {
  db = await createTestDatabase('replicaapi');
  writer = await startApp(db);
  ids = await writer.send([adft(1, '886001'), adft(2, '886002'), estt(3, '886001', '14MAR250812')]);
  await writer.drained();
  replica = await startReplica();
  await replica.caughtUp();
  const port = await freePort();
  apiBase = `http://127.0.0.1:${port}`;
  api = spawnMsgx(['start', '--role', 'api'], {
    MSGX_DATABASE_URL: db.url,
    MSGX_READ_DATABASE_URL: replica.url(db.name),
    MSGX_HTTP_HOST: '127.0.0.1',
    MSGX_HTTP_PORT: String(port),
    MSGX_HISTORY_KEEP_DAYS: '100000',
    MSGX_REPLICA_READY_LAG_MS: String(READY_LAG_MS),
  });
  await waitFor(async () => (await fetch(`${apiBase}/readyz`).catch(() => undefined))?.status === 200, { what: 'api /readyz', timeoutMs: 60_000 });
  apiGql = httpGql(`${apiBase}/graphql`);
}, 240_000);

afterAll(async () => {
  await api?.stop();
  await writer?.stop();
  await replica?.stop();
  await db?.drop();
});

describe('msgx start --role api on a streaming replica', () => {
  it('is a hot standby and the api reads from it', async () => {
    const inRecovery = await replica.admin(async (c) => (await c.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0]!.r);
    expect(inRecovery).toBe(true);
    // The api's read pool is connected to the replica (application_name msgx-read), not to the primary.
    const sessions = await replica.admin(async (c) =>
      (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'msgx-read'", [db.name])).rows[0]!.n);
    expect(sessions).toBeGreaterThan(0);
  });

  it('answers flights, flight, flightHistory, message and pipeline as the primary does once caught up', { timeout: 120_000 }, async () => {
    await sameAnswers();
    const r = await apiGql(queries(ids).flight!);
    expect(r.data!.a).toMatchObject({ flid: '886001', estimatedTime: '2025-03-14T08:12:00+08:00' });
  });

  it('follows the primary: a new decision shows on the replica once replayed, and the answers stay equal', { timeout: 120_000 }, async () => {
    ids = [...ids, ...(await writer.send([stnd(4, '886002', '212')]))];
    await writer.drained();
    await replica.caughtUp();
    await sameAnswers();
    const r = await apiGql(queries(ids).flight!);
    expect(r.data!.b).toMatchObject({ flid: '886002', currentStand: '212' });
  });

  it('a write on the replica fails, so answers without errors mean no write on those paths', async () => {
    await expect(replica.admin((c) => c.query('CREATE TABLE replica_write_probe (x int)'))).rejects.toThrow(/read-only transaction/);
  });

  it('pipeline shows the lag in positions and seconds, /readyz turns not ready past MSGX_REPLICA_READY_LAG_MS and ready again once replayed', { timeout: 120_000 }, async () => {
    expect((await writer.gql(REPLICA)).data!.pipeline.replica).toBeNull(); // read from the primary
    const before = (await apiGql(REPLICA)).data!.pipeline;
    expect(before.replica).toMatchObject({ positions: 0, seconds: 0, replayPaused: false });
    expect(await readyz()).toBe(200);
    await replica.admin((c) => c.query('SELECT pg_wal_replay_pause()'));
    try {
      ids = [...ids, ...(await writer.send([estt(5, '886002', '14MAR250830')]))];
      await writer.drained();
      const behind = await waitFor(async () => {
        const p = (await apiGql(REPLICA)).data!.pipeline;
        return p.replica.replayPaused && p.replica.positions > 0 && p.replica.seconds * 1000 > READY_LAG_MS ? p : undefined;
      }, { what: 'the paused replica to show its lag', timeoutMs: 30_000 });
      expect(behind.logPosition).toBe(before.logPosition); // the replica still shows the old head
      const metrics = await (await fetch(`${apiBase}/metrics`)).text();
      expect(metrics).toMatch(/^msgx_replica_lag_positions [1-9]/m);
      await waitFor(async () => (await readyz()) === 503, { what: '/readyz 503 while the replica lags', timeoutMs: 15_000 });
    } finally {
      await replica.admin((c) => c.query('SELECT pg_wal_replay_resume()'));
    }
    await replica.caughtUp();
    await waitFor(async () => (await readyz()) === 200, { what: '/readyz 200 once replayed', timeoutMs: 15_000 });
    expect((await apiGql(REPLICA)).data!.pipeline.replica).toMatchObject({ positions: 0, seconds: 0, replayPaused: false });
    await sameAnswers();
  });

  it('live updates: a change is announced only once the replica serving the subscriber shows it', { timeout: 120_000 }, async () => {
    const SUB = 'subscription { flightChanged(flid: "886001") { flid position flight { estimatedTime } } }';
    const onReplica = subscribeSse(`${apiBase}/graphql`, SUB);
    const onPrimary = subscribeSse(`${writer.base}/graphql`, SUB);
    try {
      // Both subscriptions are live once a first change reaches both.
      await writer.send([estt(6, '886001', '14MAR250815')]);
      await Promise.all([onReplica.next(), onPrimary.next()]);
      await replica.caughtUp();
      await replica.admin((c) => c.query('SELECT pg_wal_replay_pause()'));
      let announced = false;
      const next = onReplica.next().then((e) => {
        announced = true;
        return e;
      });
      try {
        await writer.send([estt(7, '886001', '14MAR250820')]);
        const fromPrimary = await onPrimary.next();
        expect(fromPrimary.data.flightChanged.flight.estimatedTime).toBe('2025-03-14T08:20:00+08:00');
        // The api's feed has the notification and waits for the paused replica instead of announcing it.
        await api.waitForLine(/waiting for the replica to replay the position/, { timeoutMs: 30_000 });
        expect(announced).toBe(false);
        expect((await apiGql('{ flight(flid: "886001") { estimatedTime } }')).data!.flight.estimatedTime).toBe('2025-03-14T08:15:00+08:00');
      } finally {
        await replica.admin((c) => c.query('SELECT pg_wal_replay_resume()'));
      }
      const e = await next;
      expect(e.data.flightChanged).toMatchObject({ flid: '886001', flight: { estimatedTime: '2025-03-14T08:20:00+08:00' } });
      // Announced, so the replica shows it: a screen re-reading at once sees the announced state.
      expect((await apiGql('{ flight(flid: "886001") { estimatedTime } }')).data!.flight.estimatedTime).toBe('2025-03-14T08:20:00+08:00');
    } finally {
      onReplica.close();
      onPrimary.close();
    }
  });
});
