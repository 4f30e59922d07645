/**
 * Writer and standby on two hosts (docs/scaling.md "On two hosts", docs/operations.md "Single
 * writer and standby", "Writer fenced"): `msgx start --role writer` and `--standby` each run in
 * their own network namespace and reach PostgreSQL and MariaDB over a veth link, through a
 * forwarder in the root namespace (the shared servers listen on 127.0.0.1 only). Mid-traffic the
 * writer's link goes down — no clean exit, no FIN, nothing. Then:
 * - the standby takes over within the lease plus its catch-up;
 * - the cut-off writer makes no decision after the standby's first one (told apart in the log by
 *   the client port each decision's session came from), and exits with code 1 once it learns;
 * - nothing is lost or decided twice, and the decisions (msg id, kind, handler, in log order) are
 *   those of an uninterrupted run of the same inbox.
 *
 * The forwarder and the cut: the forwarder's sockets to PostgreSQL stay healthy when the host's
 * link goes down, so PostgreSQL would keep the writer's session — and its advisory lock — for
 * ever. Over a real network PostgreSQL's TCP keepalive ends that session (the lock connection sets
 * 5 s idle + 3 × 2 s probes: ≈ 11 s). The test models that end by telling the writer's forwarders
 * to drop their connections at the moment it cuts the link (`TcpProxy.drop()`), so the measured
 * takeover is what follows the session's end; the keepalive time adds to it in production.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MS, STANDBY_RETRY_MS } from '../../src/write/writerLock.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { spawnMsgx, type MsgxProcess } from '../support/msgxProcess.ts';
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcpProxy.ts';
import { waitFor } from '../support/waitFor.ts';
import { generateTraffic } from '../write/support/traffic.ts';
import { decisions, insertCminmsgsBulk, terminalCounts } from '../write/support/writeHarness.ts';
import { createHost, netnsUnavailable, removeDeadRunHosts, type Host } from './support/netns.ts';
import { readProgress } from './support/crashProgress.ts';

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

interface Origin {
  position: number;
  port: number;
  at: Date;
}

interface Site {
  readonly host: Host;
  readonly pg: TcpProxy;
  readonly my: TcpProxy;
  readonly dataDir: string;
}

let db: TestDatabase;
let my: TestMailbox;
let ref: TestDatabase;
let refMy: TestMailbox;
const sites: Site[] = [];
const children: MsgxProcess[] = [];

const env = (pgUrl: string, myUrl: string, dataDir: string) => ({
  MSGX_DATABASE_URL: pgUrl, MSGX_MAILBOX_MYSQL_URL: myUrl, MSGX_HTTP_PORT: '0', MSGX_DATA_DIR: dataDir, MSGX_LOG_LEVEL: 'info',
  MSGX_POLL_INTERVAL_MS: '50', MSGX_INGEST_BATCH: '50', MSGX_SNAPSHOT_EVERY: '200', MSGX_STOP_TIMEOUT_MS: '5000',
  MSGX_REQUEST_REFERENCE_AT_START: 'false', MSGX_CONSISTENCY_CHECK_ON_START: 'false',
});

async function site(label: string, subnet: number): Promise<Site> {
  const host = createHost(label, subnet);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `msgx-${label}-`));
  const s: Site = {
    host,
    pg: await startTcpProxy({ target: targetOf(db.url, 5432), host: host.gateway }),
    my: await startTcpProxy({ target: targetOf(my.url, 3306), host: host.gateway }),
    dataDir,
  };
  sites.push(s);
  return s;
}

const spawnOn = (s: Site, args: string[]): MsgxProcess => {
  const p = spawnMsgx(['start', '--role', 'writer', ...args], env(s.pg.url(db.url), s.my.url(my.url), s.dataDir), { prefix: s.host.prefix });
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
  }, 120_000);

  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop('SIGKILL', 5_000)));
    for (const s of sites) {
      s.host.remove();
      await Promise.all([s.pg.close(), s.my.close()]);
      await rm(s.dataDir, { recursive: true, force: true });
    }
    await Promise.all([db?.drop(), my?.drop(), ref?.drop(), refMy?.drop()]);
  }, 60_000);

  it('the writer\'s link is cut mid-traffic: the standby takes over within the lease + catch-up, the old writer decides nothing more, the decisions equal an uninterrupted run\'s', { timeout: 420_000 }, async () => {
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

    // The cut: the writer's host loses its link; its sessions end on the servers' side (see above).
    w.host.linkDown();
    const cutAt = Date.now();
    const dropped = w.pg.drop() + w.my.drop();
    expect(dropped).toBeGreaterThan(0);
    const decidedBeforeCut = (await origins()).length;

    // The standby takes over: its first decision, within the lease + the lock retry + its catch-up.
    const first = await waitFor(async () => (await origins()).find((o) => standbyPorts.has(o.port)), {
      timeoutMs: LEASE_MS + STANDBY_RETRY_MS + CATCH_UP_MS,
      what: 'the standby\'s first decision',
    });
    const takeoverMs = first.at.getTime() - cutAt;
    // The link comes back while the old writer may still believe in its lease: it must learn it
    // lost the lock and stop, not decide or deliver one more time.
    w.host.linkUp();
    const writerExit = await writer.exit;
    const oldWriterExitMs = Date.now() - cutAt;
    expect(writerExit.code).toBe(1);
    const learnt = /writer lock (connection lost|connection closed|unproven)|writer fenced/.exec(writer.output());
    expect(learnt).not.toBeNull();

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
    const counts = terminalCounts(await decisions(db));
    expect(counts.size).toBe(TOTAL);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);

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
        cutToFirstDecisionMs: takeoverMs,
        oldWriterExitAfterCutMs: oldWriterExitMs,
        oldWriterLearnt: learnt?.[0],
      }),
    );
    expect(takeoverMs).toBeLessThan(LEASE_MS + STANDBY_RETRY_MS + CATCH_UP_MS);
  });
});
