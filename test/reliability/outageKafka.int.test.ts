/**
 * Outage of the Kafka broker under the assembled app: the in-process test broker
 * (test/support/kafka/broker.ts) stops listening and drops its connections while messages flow,
 * for ~5 s (60 s with MSGX_SOAK=1), and comes back with its stored records and producer state —
 * as a restarted broker does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPlan } from '../../src/write/requests/requestPlan.ts';
import { startKafkaBroker, type KafkaTestBroker, type StoredRecord } from '../support/kafka/broker.ts';
import { waitFor } from '../support/waitFor.ts';
import { decisions, insertCminmsgsBulk, terminalCounts } from '../write/support/writeHarness.ts';
import {
  check, counts, describeProblems, holdOutage, logIsGapFree, logLines, notReady, operations, OUTAGE_MS, outageDatabases, plan, problemsPerComponent,
  DRAIN_WITHIN_MS, RESUME_WITHIN_MS, startApp, type RunningApp,
} from './support/outageApp.ts';

const dbs = outageDatabases('outkafka');
let broker: KafkaTestBroker;
let app: RunningApp | undefined;

beforeAll(async () => {
  broker = await startKafkaBroker({ topics: { msg: 3, schd: 1 } });
});
afterAll(async () => {
  await app?.stop();
  await broker?.close();
});

interface OutboxRow {
  eventId: string;
  target: string;
  flid: string | null;
  state: string;
  attempts: number;
  ref: { topic: string; partition: number; offset: string } | null;
}

async function outbox(): Promise<OutboxRow[]> {
  const { rows } = await dbs.db.pool.query<OutboxRow>(
    `SELECT event_id AS "eventId", target, flid, state, attempts, delivery_ref AS ref FROM msg_event ORDER BY event_id`,
  );
  return rows;
}

async function outboxStates(target: string): Promise<Record<string, number>> {
  const { rows } = await dbs.db.pool.query<{ state: string; n: string }>('SELECT state, count(*) AS n FROM msg_event WHERE target = $1 GROUP BY state', [target]);
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

async function headAttempts(target: string): Promise<number> {
  const { rows } = await dbs.db.pool.query<{ attempts: number }>(
    "SELECT attempts FROM msg_event WHERE target = $1 AND state = 'PENDING' ORDER BY event_id LIMIT 1",
    [target],
  );
  return rows[0]?.attempts ?? 0;
}

/** Projections at the log head and nothing left to decide. */
async function decidedAndProjected(): Promise<boolean> {
  const r = await app!.gql('{ pipeline { backlog projections { name lag } } }');
  const p = r.data?.pipeline as { backlog: number; projections: { lag: string }[] } | undefined;
  return !!p && p.backlog === 0 && p.projections.length > 0 && p.projections.every((x) => x.lag === '0');
}

describe(`Kafka broker down for ${OUTAGE_MS / 1000} s`, () => {
  it('reports not ready, keeps deciding and projecting, holds Kafka deliveries PENDING, and delivers all in per-flight order within 5 s of recovery', { timeout: 420_000 }, async () => {
    app = await startApp({ MSGX_DATABASE_URL: dbs.db.url, MSGX_MAILBOX_MYSQL_URL: dbs.my.url, MSGX_KAFKA_BROKERS: broker.brokers[0]!, MSGX_MAX_ATTEMPTS: '2' });
    expect((await app.readyz()).status).toBe(200);

    // Traffic flows and reaches Kafka.
    await insertCminmsgsBulk(dbs.my, [plan(), ...operations(1000, 300)]);
    await waitFor(() => broker.records('msg').length > 100, { timeoutMs: 20_000, what: 'records on msg before the outage' });

    // ---- the outage ----
    await broker.faults.stop();
    const stoppedAt = Date.now();
    const onBroker = broker.records('msg').length;
    await insertCminmsgsBulk(dbs.my, operations(2000, 300));

    const duringOutage = async () => {
      const r = await notReady(app!);
      expect(check(r, 'kafka').ok).toBe(false);
      expect(check(r, 'postgres').ok).toBe(true);
      expect(check(r, 'mailbox').ok).toBe(true);
      // The pump and the projectors keep going: everything decided and in the read model.
      await waitFor(decidedAndProjected, { timeoutMs: DRAIN_WITHIN_MS, what: 'decided and projected during the outage' });
      // More traffic while it is down.
      await insertCminmsgsBulk(dbs.my, operations(3000, 100));
      await waitFor(decidedAndProjected, { timeoutMs: DRAIN_WITHIN_MS, what: 'the second burst decided and projected' });
      // Kafka heads retry past MSGX_MAX_ATTEMPTS (2) and stay PENDING: an outage never makes them DEAD.
      await waitFor(async () => (await headAttempts('KAFKA_MSG')) > 2, { timeoutMs: 30_000, what: 'KAFKA_MSG head retried past max attempts' });
      // COUTMSGS does not wait for Kafka: an operator's plan request goes out now.
      const req = await requestPlan({ pool: app!.rt.pool, mailbox: app!.rt.mailbox, clock: app!.rt.clock, cfg: app!.rt.cfg, log: app!.log.log },
        new Date('2025-03-15T00:00:00Z'), new Date('2025-03-15T12:00:00Z'));
      // Sent by this call, or (when the running request tracker's round claimed the new row first,
      // FOR UPDATE SKIP LOCKED) by the tracker: either way it reaches COUTMSGS while Kafka is down.
      if (req.send) expect(req.send).toMatchObject({ sent: true });
      const mails = async () => ((await dbs.my.pool.query('SELECT COUTMSGS_CLOB_MSG AS xml FROM COUTMSGS'))[0] as { xml: string }[]).map((m) => m.xml);
      await waitFor(async () => (await mails()).length > 0, { timeoutMs: DRAIN_WITHIN_MS, what: 'the plan request in COUTMSGS' });
      expect(await mails()).toEqual([expect.stringContaining(req.mgid)]);
    };
    await Promise.all([holdOutage(OUTAGE_MS), duringOutage()]);
    for (const target of ['KAFKA_MSG', 'KAFKA_SCHD']) {
      const states = await outboxStates(target);
      expect(states.PENDING, target).toBeGreaterThan(0);
      expect(states.DEAD ?? 0, target).toBe(0);
    }
    expect(broker.records('msg').length).toBe(onBroker);

    // ---- recovery ----
    await broker.faults.restart();
    const restartedAt = Date.now();
    await waitFor(() => broker.records('msg').length > onBroker, { timeoutMs: RESUME_WITHIN_MS, intervalMs: 10, what: 'deliveries to resume' });
    const resumedMs = Date.now() - restartedAt;
    await waitFor(async () => (await outbox()).every((r) => r.state === 'SENT'), { timeoutMs: DRAIN_WITHIN_MS, what: 'every delivery SENT' });
    const drainedMs = Date.now() - restartedAt;
    await waitFor(async () => (await app!.readyz()).status === 200, { timeoutMs: RESUME_WITHIN_MS, what: '/readyz 200 again' });

    // Decisions: one terminal decision per message, log without holes.
    const c = await counts(dbs.db);
    const terminal = terminalCounts(await decisions(dbs.db));
    expect(terminal.size).toBe(c.copied);
    expect([...terminal.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(await logIsGapFree(dbs.db)).toBe(true);

    // msg: every KAFKA_MSG row exactly once (the idempotent producer kept the broker from storing a
    // retried batch twice), and per flight in event order.
    const rows = await outbox();
    const msgRows = rows.filter((r) => r.target === 'KAFKA_MSG');
    const records = broker.records('msg');
    const eventIds = records.map((r) => r.headers['event-id']);
    expect(eventIds.length - new Set(eventIds).size).toBe(0);
    expect(new Set(eventIds)).toEqual(new Set(msgRows.map((r) => r.eventId)));
    const perKey = (rs: readonly { key: string | null; id: string }[]) => {
      const m = new Map<string, string[]>();
      for (const r of rs) m.set(r.key ?? '', [...(m.get(r.key ?? '') ?? []), r.id]);
      return m;
    };
    const byOffset = [...records].sort((a, b) => a.partition - b.partition || Number(a.offset - b.offset));
    expect(perKey(byOffset.map((r) => ({ key: r.key, id: r.headers['event-id']! })))).toEqual(
      perKey(msgRows.map((r) => ({ key: r.flid, id: r.eventId }))),
    );
    for (const row of msgRows) {
      const rec = records.find((r) => r.headers['event-id'] === row.eventId)!;
      expect(row.ref).toEqual({ topic: 'msg', partition: rec.partition, offset: String(rec.offset) });
    }
    // schd: every KAFKA_SCHD row is covered by the batch record its ref names.
    const schd = broker.records('schd');
    for (const row of rows.filter((r) => r.target === 'KAFKA_SCHD')) {
      const rec: StoredRecord | undefined = schd.find((r) => String(r.offset) === row.ref?.offset);
      expect(rec, `schd record for ${row.eventId}`).toBeDefined();
      expect(BigInt(rec!.headers['event-id-first']!) <= BigInt(row.eventId) && BigInt(row.eventId) <= BigInt(rec!.headers['event-id-last']!)).toBe(true);
    }

    // Logged once, not a flood.
    const lines = logLines(app.log);
    const problems = problemsPerComponent(lines, stoppedAt, restartedAt + drainedMs);
    const story = describeProblems(lines, stoppedAt, restartedAt + drainedMs);
    expect(Object.keys(problems), story).toEqual(expect.arrayContaining(['delivery/KAFKA_MSG']));
    for (const [component, n] of Object.entries(problems)) expect(n, `${component}:\n${story}`).toBeLessThanOrEqual(2);

    process.stderr.write(`[outage kafka] outage ${restartedAt - stoppedAt} ms, deliveries resumed after ${resumedMs} ms, all sent ${drainedMs} ms after restart; ${records.length} msg records, ${schd.length} schd batches; warnings: ${JSON.stringify(problems)}\n`);
  });
});
