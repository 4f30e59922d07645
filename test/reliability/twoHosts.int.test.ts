/**
 * Writer and standby on two hosts (docs/scaling.md "On two hosts", docs/operations.md "Single
 * writer and standby", "Writer fenced"): `msgx start --role writer` and `--standby` each run in
 * their own network namespace and reach PostgreSQL and MariaDB over a veth link, through a
 * forwarder in the root namespace (the shared servers listen on 127.0.0.1 only). Mid-traffic the
 * writer's link goes down — no clean exit, no FIN, nothing. Then:
 * - the standby takes over within the lease plus its catch-up;
 * - the cut-off writer makes no decision after the standby's first one (told apart in the log by
 *   the client port each decision's session came from);
 * - when its link comes back, inside its lease, the old writer's next commit or send is refused
 *   by the epoch row (writer_fence): it logs "writer fenced", stops deciding and delivering and
 *   exits with code 1;
 * - nothing is lost or decided twice, and the decisions (msg id, kind, handler, in log order) are
 *   those of an uninterrupted run of the same inbox;
 * - Kafka (the in-process broker, `msg` on three partitions, reached from each host through
 *   forwarders): every KAFKA_MSG row is one record per (flid, position, event id), each flight's
 *   records in one partition in log order. The only records allowed twice are rows the old writer
 *   had claimed and not yet marked sent at the cut (a send whose acknowledgement the cut may have
 *   lost: at-least-once, docs/delivery.md); how many there were is printed.
 *
 * The forwarder and the cut: the forwarder's sockets to PostgreSQL stay healthy when the host's
 * link goes down, so PostgreSQL would keep the writer's sessions — and its advisory lock — for
 * ever. Over a real network PostgreSQL's TCP keepalive ends the lock's session first (the lock
 * connection sets 5 s idle + 3 × 2 s probes: ≈ 11 s; the pool's sessions keep the server's
 * default of hours). The test models that end at the moment it cuts the link: the lock
 * connection's forwarder pair is blackholed (`TcpProxy.blackhole()`: the server ends the session,
 * the old writer never hears of it), every other connection stays as it is. So the measured
 * takeover is what follows the session's end (the keepalive time adds to it in production), and
 * the link is back before the old writer's lease has run out: only the epoch row stands between
 * it and a second writer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITER_LOCK_KEY } from '../../src/domain/contract.ts';
import { LEASE_MS, STANDBY_RETRY_MS } from '../../src/write/writerLock.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { spawnMsgx, type MsgxProcess } from '../support/msgxProcess.ts';
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcpProxy.ts';
import { waitFor } from '../support/waitFor.ts';
import { generateTraffic } from '../write/support/traffic.ts';
import { decisions, insertCminmsgsBulk, terminalCounts } from '../write/support/writeHarness.ts';
import { startKafkaBroker, type KafkaTestBroker } from '../support/kafka/broker.ts';
import { createHost, forwardInside, netnsUnavailable, removeDeadRunHosts, type Host, type InnerForwarder } from './support/netns.ts';
import { readProgress } from './support/crashProgress.ts';
import { checkMsgTopic } from './support/crashChecks.ts';

const unavailable = netnsUnavailable();
if (unavailable) console.warn(`twoHosts.int.test.ts skipped: ${unavailable}`);

const TOTAL = 900;
const FIRST = 300;
const CHUNK = 30;
/** The feeder keeps at most this many messages undecided: traffic flows through the cut. */
const AHEAD = 120;
/** What the standby may take after the lock is free, on this busy 2-core machine: fold the decisions it had not followed, start its pump. */
const CATCH_UP_MS = 15_000;

/** Which session appended each decision: its client port, i.e. which forwarder it came through (a test-only trigger, not part of the schema). */
const ORIGIN_SQL = `
  CREATE TABLE test_decision_origin (position bigint PRIMARY KEY, client_port integer, at timestamptz NOT NULL);
  CREATE FUNCTION test_decision_origin() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO test_decision_origin VALUES (NEW.position, inet_client_port(), clock_timestamp());
    RETURN NULL;
  END $$;
  CREATE TRIGGER test_decision_origin AFTER INSERT ON decision_event FOR EACH ROW EXECUTE FUNCTION test_decision_origin();`;

/** Every epoch that ever claimed each outbox row (test-only, like the trigger above). */
const CLAIMS_SQL = `
  CREATE TABLE test_claim (event_id bigint NOT NULL, epoch bigint NOT NULL);
  CREATE FUNCTION test_claim() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO test_claim VALUES (NEW.event_id, NEW.claim_epoch);
    RETURN NULL;
  END $$;
  CREATE TRIGGER test_claim AFTER UPDATE OF claim_epoch ON msg_event FOR EACH ROW
    WHEN (NEW.claim_epoch IS DISTINCT FROM OLD.claim_epoch) EXECUTE FUNCTION test_claim();`;

/** The client port of the session holding the writer lock (as writerLock.ts's holder() finds it). */
const lockHolderPort = async (): Promise<number | undefined> =>
  (await db.pool.query<{ port: number }>(
    `SELECT a.client_port AS port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [WRITER_LOCK_KEY],
  )).rows[0]?.port;

interface Origin {
  position: number;
  port: number;
  at: Date;
}

interface Site {
  readonly host: Host;
  readonly pg: TcpProxy;
  readonly my: TcpProxy;
  readonly kafka: TcpProxy;
  readonly kafkaInside: InnerForwarder;
  readonly dataDir: string;
}

let db: TestDatabase;
let my: TestMailbox;
let ref: TestDatabase;
let refMy: TestMailbox;
let broker: KafkaTestBroker;
const sites: Site[] = [];
const children: MsgxProcess[] = [];

const env = (pgUrl: string, myUrl: string, dataDir: string, kafka: Record<string, string> = {}) => ({
  ...kafka,
  MSGX_DATABASE_URL: pgUrl, MSGX_MAILBOX_MYSQL_URL: myUrl, MSGX_HTTP_PORT: '0', MSGX_DATA_DIR: dataDir, MSGX_LOG_LEVEL: 'info',
  MSGX_POLL_INTERVAL_MS: '50', MSGX_INGEST_BATCH: '50', MSGX_SNAPSHOT_EVERY: '200', MSGX_STOP_TIMEOUT_MS: '5000',
  MSGX_REQUEST_REFERENCE_AT_START: 'false', MSGX_CONSISTENCY_CHECK_ON_START: 'false',
});

async function site(label: string, subnet: number): Promise<Site> {
  const host = createHost(label, subnet);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `msgx-${label}-`));
  // The broker advertises 127.0.0.1:<port>: on the host that address is a forwarder to the gateway's.
  const kafka = await startTcpProxy({ target: { host: '127.0.0.1', port: broker.port }, host: host.gateway });
  const s: Site = {
    host,
    pg: await startTcpProxy({ target: targetOf(db.url, 5432), host: host.gateway }),
    my: await startTcpProxy({ target: targetOf(my.url, 3306), host: host.gateway }),
    kafka,
    kafkaInside: await forwardInside(host, broker.port, { host: kafka.host, port: kafka.port }),
    dataDir,
  };
  sites.push(s);
  return s;
}

const spawnOn = (s: Site, args: string[]): MsgxProcess => {
  const kafka = { MSGX_KAFKA_BROKERS: broker.brokers[0]! };
  const p = spawnMsgx(['start', '--role', 'writer', ...args], env(s.pg.url(db.url), s.my.url(my.url), s.dataDir, kafka), { prefix: s.host.prefix });
  children.push(p);
  return p;
};

const origins = async (): Promise<Origin[]> =>
  (await db.pool.query<{ position: string; port: number; at: Date }>('SELECT position, client_port AS port, at FROM test_decision_origin ORDER BY position')).rows.map(
    (r) => ({ position: Number(r.position), port: r.port, at: r.at }),
  );

const sequence = async (d: TestDatabase) =>
  (await d.pool.query<{ msg_id: string; kind: string; handler: string | null }>('SELECT msg_id, kind, handler FROM decision_event WHERE msg_id IS NOT NULL ORDER BY position')).rows.map(
    (r) => `${r.msg_id} ${r.kind} ${r.handler ?? '-'}`,
  );

const unwritten = async (m: TestMailbox): Promise<number> => {
  const [rows] = await m.pool.query('SELECT count(*) AS n FROM CMINMSGS WHERE CMINMSGS_DATE_PROCESSED IS NULL');
  return Number((rows as { n: number }[])[0]!.n);
};

/** The `time` (epoch ms) of the first JSON log line containing `text` logged at or after `after`. */
const timeOf = (output: string, text: string, after = 0): number | undefined =>
  output
    .split('\n')
    .filter((l) => l.includes(text))
    .map((l) => new Date((JSON.parse(l) as { time: string }).time).getTime())
    .find((t) => t >= after);

describe.skipIf(unavailable !== undefined)('writer and standby on two hosts (network namespaces)', () => {
  beforeAll(async () => {
    removeDeadRunHosts();
    [db, my, ref, refMy] = await Promise.all([
      createTestDatabase('twohosts'),
      createTestMailbox('twohosts'),
      createTestDatabase('twohostsref'),
      createTestMailbox('twohostsref'),
    ]);
    await db.pool.query(ORIGIN_SQL);
    await db.pool.query(CLAIMS_SQL);
    broker = await startKafkaBroker({ topics: { msg: 3, schd: 1 } });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop('SIGKILL', 5_000)));
    for (const s of sites) {
      s.kafkaInside.stop();
      s.host.remove();
      await Promise.all([s.pg.close(), s.my.close(), s.kafka.close()]);
      await rm(s.dataDir, { recursive: true, force: true });
    }
    await broker?.close();
    await Promise.all([db?.drop(), my?.drop(), ref?.drop(), refMy?.drop()]);
  }, 60_000);

  it('the writer\'s link is cut mid-traffic: the standby takes over within the lease + catch-up; the old writer, back inside its lease, is fenced by the epoch row; nothing lost, decided or sent twice; the decisions equal an uninterrupted run\'s', { timeout: 420_000 }, async () => {
    const subnet = 1 + 2 * (process.pid % 120);
    const w = await site('w', subnet);
    const s = await site('s', subnet + 1);
    const traffic = generateTraffic(TOTAL);
    await insertCminmsgsBulk(my, traffic.slice(0, FIRST));

    const writer = spawnOn(w, []);
    await writer.waitForLine('pump started', { timeoutMs: 150_000 });
    const standby = spawnOn(s, ['--standby']);
    await standby.waitForLine('standby: write model follows the log', { timeoutMs: 150_000 });

    // Traffic keeps flowing: the feeder inserts the rest in chunks, never more than AHEAD undecided.
    let inserted = FIRST;
    const feeding = (async () => {
      while (inserted < TOTAL) {
        await waitFor(async () => (await readProgress(db.pool)).decisions >= inserted - AHEAD, { timeoutMs: 180_000, what: 'the writer to keep up with the feed' });
        const part = traffic.slice(inserted, inserted + CHUNK);
        await insertCminmsgsBulk(my, part);
        inserted += part.length;
      }
    })();

    await waitFor(async () => (await readProgress(db.pool)).decisions >= FIRST + 2 * CHUNK, { timeoutMs: 120_000, what: 'the feed flowing through the writer' });
    const writerPorts = w.pg.upstreamPorts();
    const standbyPorts = s.pg.upstreamPorts();
    const lockPort = await lockHolderPort();
    expect(lockPort !== undefined && writerPorts.has(lockPort)).toBe(true);
    const oldEpoch = (await db.pool.query<{ epoch: string }>('SELECT epoch::text AS epoch FROM writer_fence WHERE id = 1')).rows[0]!.epoch;

    // The cut: the writer's host loses its link; the server ends its lock's session (see above),
    // its other sessions stay, waiting for the link.
    w.host.linkDown();
    const cutAt = Date.now();
    expect(w.pg.blackhole((port) => port === lockPort)).toBe(1);
    const decidedBeforeCut = (await origins()).length;

    // The standby takes the lock; the link comes back at once, well inside the old writer's
    // lease (its last probe was answered at most PROBE_INTERVAL_MS before the cut).
    const budget = LEASE_MS + STANDBY_RETRY_MS + CATCH_UP_MS;
    await waitFor(async () => {
      const port = await lockHolderPort();
      return port !== undefined && standbyPorts.has(port);
    }, { timeoutMs: budget, intervalMs: 20, what: 'the standby to hold the writer lock' });
    w.host.linkUp();
    const linkBackMs = Date.now() - cutAt;

    // The standby's first decision, within the lease + the lock retry + its catch-up.
    const first = await waitFor(async () => (await origins()).find((o) => standbyPorts.has(o.port)), {
      timeoutMs: budget,
      what: 'the standby\'s first decision',
    });
    const takeoverMs = first.at.getTime() - cutAt;
    // The old writer still believes in its lock: its next commit or send is refused by the epoch
    // row, and it stops deciding and delivering (docs/operations.md "Writer fenced").
    const writerExit = await writer.exit;
    const oldWriterExitMs = Date.now() - cutAt;
    expect(writerExit.code).toBe(1);
    const fenced = /"msg":"writer fenced: (pump|delivery [A-Z_]+) was refused/.exec(writer.output());
    expect(fenced, writer.output().slice(-3000)).not.toBeNull();
    expect(writer.output()).toMatch(/not committing: another writer took the lock|not sending, another writer took the lock/);
    expect(writer.output()).not.toMatch(/writer lock (connection lost|connection closed|unproven)/);

    await feeding;
    await waitFor(async () => {
      const p = await readProgress(db.pool);
      return p.ingested === TOTAL && p.unfinished === 0 && p.backfillPending === 0;
    }, { timeoutMs: 180_000, what: 'every message decided and written back by the standby' });
    expect(await unwritten(my)).toBe(0);

    // Who decided what: the old writer nothing from the standby's first decision on; no third party.
    const all = await origins();
    expect(all.every((o) => writerPorts.has(o.port) || standbyPorts.has(o.port))).toBe(true);
    const lastOfWriter = Math.max(...all.filter((o) => writerPorts.has(o.port)).map((o) => o.position));
    expect(lastOfWriter).toBeLessThan(first.position);
    expect(all.filter((o) => o.position >= first.position).every((o) => standbyPorts.has(o.port))).toBe(true);
    expect(standby.output()).not.toMatch(/writer fenced/);

    // Nothing lost, nothing decided twice.
    const log = await decisions(db);
    const counts = terminalCounts(log);
    expect(counts.size).toBe(TOTAL);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);

    // Kafka: every change of the log on `msg`, per flight in one partition and in log order; a
    // record twice only when the old writer had claimed its row (sent, or perhaps sent, before it
    // was fenced) and the standby took the row over after the claim's grace.
    // The outbox feeder past the log's head first: until then "every row sent" can hold while the
    // rows of the last decisions are not made yet (a race seen under CI's load).
    const msgRows = await waitFor(async () => {
      const { rows: fed } = await db.pool.query<{ fed: boolean }>(
        "SELECT (SELECT position FROM projection_checkpoint WHERE name = 'outbox') >= (SELECT max(position) FROM decision_event) AS fed");
      if (!fed[0]?.fed) return undefined;
      const { rows } = await db.pool.query<{ event_id: string; flid: string | null; state: string }>(
        "SELECT event_id::text, flid, state FROM msg_event WHERE target = 'KAFKA_MSG' ORDER BY event_id");
      return rows.every((r) => r.state === 'SENT') ? rows : undefined;
    }, { timeoutMs: 120_000, what: 'the outbox fed up to the head and every KAFKA_MSG row sent' });
    const records = broker.records('msg');
    const msg = checkMsgTopic(log, records, 'Asia/Shanghai');
    expect(msg.problems).toEqual([]);
    const copies = new Map<string, number>();
    for (const r of records) copies.set(r.headers['event-id']!, (copies.get(r.headers['event-id']!) ?? 0) + 1);
    expect([...copies.keys()].sort()).toEqual(msgRows.map((r) => r.event_id).sort());
    const claimedByOld = new Set((await db.pool.query<{ id: string }>(
      'SELECT DISTINCT event_id::text AS id FROM test_claim WHERE epoch <= $1', [oldEpoch])).rows.map((r) => r.id));
    const twice = [...copies].filter(([, n]) => n > 1);
    expect(twice.filter(([id, n]) => n > 2 || !claimedByOld.has(id))).toEqual([]);
    for (const flid of new Set(msgRows.map((r) => r.flid).filter((f) => f !== null))) {
      expect(new Set(records.filter((r) => r.key === flid).map((r) => r.partition)).size, `flid ${flid}`).toBe(1);
    }
    expect(new Set(records.map((r) => r.partition)).size).toBeGreaterThan(1);

    // The same inbox, uninterrupted, on one host: the same decisions in the same order.
    await insertCminmsgsBulk(refMy, traffic);
    const refDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-ref-'));
    try {
      const single = spawnMsgx(['start', '--role', 'writer'], env(ref.url, refMy.url, refDir));
      children.push(single);
      await waitFor(async () => {
        const p = await readProgress(ref.pool);
        return p.ingested === TOTAL && p.unfinished === 0 && p.backfillPending === 0;
      }, { timeoutMs: 240_000, what: 'the uninterrupted run to finish' });
      expect(await sequence(db)).toEqual(await sequence(ref));
      single.kill('SIGTERM');
      expect((await single.exit).code).toBe(0);
    } finally {
      await rm(refDir, { recursive: true, force: true });
    }

    standby.kill('SIGTERM');
    expect(await standby.exit).toEqual({ code: 0, signal: null });

    const lockAt = timeOf(standby.output(), 'standby: writer lock taken');
    const caughtUp = lockAt === undefined ? undefined : timeOf(standby.output(), 'write model caught up', lockAt);
    console.log(
      JSON.stringify({
        figure: 'two-host takeover',
        decisionsBeforeCut: decidedBeforeCut,
        cutToLockMs: lockAt === undefined ? null : lockAt - cutAt,
        lockToCaughtUpMs: lockAt === undefined || caughtUp === undefined ? null : caughtUp - lockAt,
        cutToLinkBackMs: linkBackMs,
        cutToFirstDecisionMs: takeoverMs,
        oldWriterExitAfterCutMs: oldWriterExitMs,
        oldWriterFencedBy: fenced?.[1],
        msgRecords: records.length,
        msgSentTwice: twice.length,
      }),
    );
    expect(takeoverMs).toBeLessThan(LEASE_MS + STANDBY_RETRY_MS + CATCH_UP_MS);
  });
});
