/**
 * Figure 6 — end to end: one FLOP INSERTed into MariaDB CMINMSGS (committed) → its record stored
 * (acked) by the Kafka test broker on topic `msg`, MSGX_POLL_INTERVAL_MS = 200.
 *
 * msgx: `msgx start --role writer` (child process) after a DNLD of 200 flights; then FLOPs of the
 * generated mix one at a time, each sent once the previous one arrived, 0–200 ms apart (so the
 * inserts fall at random points of the poll cycle). Only FLOPs that change a flight are sent (the
 * in-process DomainMirror tells), since others produce no record.
 * Baseline: a plain relay in this process with the same poll interval — SELECT new CMINMSGS rows by
 * id every 200 ms and produce each to Kafka (kafkajs, idempotent, acks=all, as msgx's producer) —
 * measured the same way on its own MariaDB database and topic, taking turns with msgx message by
 * message (so both see the same load on the machine).
 */
import type mysql from 'mysql2/promise';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { startKafkaBroker, type KafkaTestBroker } from '../../test/support/kafka/broker.ts';
import { generateDay, rng } from '../generate.ts';
import { startMsgx, type Child } from '../harness/child.ts';
import { insertOne } from '../harness/cminmsgs.ts';
import { createBenchMysql, createBenchPg } from '../harness/databases.ts';
import { DomainMirror } from '../harness/domainMirror.ts';
import { row, type Figure, type FigureResult } from '../harness/figure.ts';
import { untilRecords } from '../harness/kafkaRecords.ts';
import { progress } from '../harness/progress.ts';
import { nowMs, pause, percentile, round, summarize } from '../harness/stats.ts';

const POLL_MS = 200;
const SAMPLES = 100;
const FLIGHTS = 200;
const TIMEOUT_MS = 30_000;

interface Sample {
  readonly id: string;
  /** Epoch ms when the INSERT had committed and when the broker stored the record. */
  readonly insertedAt: number;
  readonly ackedAt: number;
}

/** Insert one message, wait for its record (header msg-id) on `topic`. */
async function sampleOne(broker: KafkaTestBroker, topic: string, pool: mysql.Pool, xml: string): Promise<Sample> {
  const from = broker.records(topic).length;
  const id = await insertOne(pool, xml);
  const t0 = nowMs();
  const t1 = await untilRecords(broker, topic, (recs) => recs.slice(from).some((x) => x.headers['msg-id'] === id), TIMEOUT_MS);
  return { id, insertedAt: performance.timeOrigin + t0, ackedAt: performance.timeOrigin + t1 };
}

/**
 * Where the time goes, from the time stamps msgx records (same machine clock): the ingest poll
 * that copied the message (inbox_message.ingested_at = the poll's start), its decision
 * (decision_event.recorded_at = when the pump took it up), the msg_event row (created_at, by the
 * outbox feeder) and its delivery (sent_at, after the broker's ack). p50 of each step, in ms.
 */
async function stages(db: pg.Client, samples: readonly Sample[]): Promise<Record<string, number>> {
  const { rows } = await db.query<{ id: string; ingested: Date; decided: Date; fed: Date; sent: Date }>(
    `SELECT m.msg_id::text AS id, m.ingested_at AS ingested,
            (SELECT min(recorded_at) FROM decision_event d WHERE d.msg_id = m.msg_id) AS decided,
            (SELECT min(created_at) FROM msg_event e WHERE e.msg_id = m.msg_id AND e.target = 'KAFKA_MSG') AS fed,
            (SELECT min(sent_at) FROM msg_event e WHERE e.msg_id = m.msg_id AND e.target = 'KAFKA_MSG') AS sent
       FROM inbox_message m WHERE m.msg_id = ANY($1::bigint[])`,
    [samples.map((x) => x.id)],
  );
  const by = new Map(rows.map((x) => [x.id, x]));
  const steps: Record<string, number[]> = { insertToPollStart: [], pollStartToDecision: [], decisionToOutboxRow: [], outboxRowToSent: [], sentToBrokerSeen: [] };
  for (const x of samples) {
    const r = by.get(x.id);
    if (!r?.decided || !r.fed || !r.sent) continue;
    steps.insertToPollStart!.push(r.ingested.getTime() - x.insertedAt);
    steps.pollStartToDecision!.push(r.decided.getTime() - r.ingested.getTime());
    steps.decisionToOutboxRow!.push(r.fed.getTime() - r.decided.getTime());
    steps.outboxRowToSent!.push(r.sent.getTime() - r.fed.getTime());
    steps.sentToBrokerSeen!.push(x.ackedAt - r.sent.getTime());
  }
  return Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, round(percentile(v, 50))]));
}

/** The baseline relay: poll CMINMSGS by id every POLL_MS, produce each row to `topic`. */
function startRelay(broker: KafkaTestBroker, pool: mysql.Pool, topic: string): { stop(): Promise<void> } {
  const kafka = new Kafka({ clientId: 'msgx-bench-relay', brokers: [...broker.brokers], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  let running = true;
  const loop = (async () => {
    await producer.connect();
    let after = '0';
    while (running) {
      const [rows] = await pool.query<(mysql.RowDataPacket & { id: string; xml: string })[]>(
        'SELECT CMINMSGS_ID AS id, CMINMSGS_CLOB_MSG AS xml FROM CMINMSGS WHERE CMINMSGS_ID > ? ORDER BY CMINMSGS_ID LIMIT 500',
        [after],
      );
      if (rows.length > 0) {
        await producer.send({ topic, acks: -1, messages: rows.map((x) => ({ key: null, value: x.xml, headers: { 'msg-id': String(x.id) } })) });
        after = String(rows[rows.length - 1]!.id);
      }
      if (rows.length < 500) await pause(POLL_MS);
    }
    await producer.disconnect();
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** FLOPs that change a flight, in generated order, as msgx will decide them after `plan`. */
async function changingFlops(plan: string, flops: readonly string[], n: number): Promise<string[]> {
  const mirror = new DomainMirror();
  await mirror.process(plan, '1');
  const out: string[] = [];
  for (const raw of flops) {
    if (out.length >= n) break;
    const outcome = await mirror.evaluate(raw);
    if (outcome.kind !== 'Applied' || outcome.changes.length === 0) continue;
    mirror.commit(String(out.length + 2), outcome);
    out.push(raw);
  }
  if (out.length < n) throw new Error(`only ${out.length} changing FLOPs generated`);
  return out;
}

export const endToEndFigure: Figure = {
  id: 6,
  name: 'e2e',
  title: 'end to end CMINMSGS insert → Kafka ack',
  async run(): Promise<FigureResult> {
    const gen = generateDay({ seed: 61, flights: FLIGHTS, flopsPerFlight: 3, fullLists: true });
    const [plan, ...candidates] = gen.messages;
    const flops = await changingFlops(plan!, candidates, SAMPLES);
    const broker = await startKafkaBroker({ topics: { msg: 1, schd: 1, relay: 1 } });
    const myRelay = await createBenchMysql('e2erelay');
    const my = await createBenchMysql('e2e');
    const db = await createBenchPg('e2e');
    let child: Child | undefined;
    try {
      child = await startMsgx('e2e', ['--role', 'writer'], {
        MSGX_DATABASE_URL: db.url,
        MSGX_MAILBOX_MYSQL_URL: my.url,
        MSGX_KAFKA_BROKERS: broker.brokers.join(','),
        MSGX_POLL_INTERVAL_MS: String(POLL_MS),
      });
      progress(`e2e: msgx started; plan of ${FLIGHTS} flights, then ${SAMPLES} FLOPs one at a time, each also through the relay`);
      const planId = await insertOne(my.pool, plan!);
      await untilRecords(broker, 'msg', (recs) => recs.filter((x) => x.headers['msg-id'] === planId).length >= FLIGHTS, 120_000);
      // msgx and the relay take turns, message by message, so both meet the same machine load.
      const relay = startRelay(broker, myRelay.pool, 'relay');
      const r = rng(7);
      const msgxSamples: Sample[] = [];
      const relaySamples: Sample[] = [];
      try {
        for (const xml of flops) {
          await pause(Math.floor(r() * POLL_MS));
          msgxSamples.push(await sampleOne(broker, 'msg', my.pool, xml));
          await pause(Math.floor(r() * POLL_MS));
          relaySamples.push(await sampleOne(broker, 'relay', myRelay.pool, xml));
        }
      } finally {
        await relay.stop();
      }

      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      const { rows, breakdown } = await (async () => {
        const states = await c.query<{ state: string; n: number }>('SELECT state, count(*)::int AS n FROM proc_state GROUP BY state');
        return { rows: states.rows, breakdown: await stages(c, msgxSamples) };
      })().finally(() => c.end());
      const latency = (x: Sample) => x.ackedAt - x.insertedAt;
      const s = summarize(msgxSamples.map(latency));
      const b = summarize(relaySamples.map(latency));
      return {
        rows: [
          row('insert → Kafka ack p99', { value: s.p99, unit: 'ms' }, { value: b.p99, unit: 'ms', what: 'poll-and-produce relay' }, 'lower', {
            text: `≤ ${POLL_MS + 100} ms`,
            met: s.p99 <= POLL_MS + 100,
          }),
          row('insert → Kafka ack p50', { value: s.p50, unit: 'ms' }, { value: b.p50, unit: 'ms', what: 'poll-and-produce relay' }, 'lower'),
        ],
        details: {
          pollIntervalMs: POLL_MS,
          samples: SAMPLES,
          msgxMs: mapRound(s),
          relayMs: mapRound(b),
          msgxStepsP50Ms: breakdown,
          states: Object.fromEntries(rows.map((x) => [x.state, x.n])),
          childLog: child.logFile,
        },
      };
    } finally {
      await child?.stop();
      await broker.close();
      await db.drop();
      await my.drop();
      await myRelay.drop();
    }
  },
};

const mapRound = (s: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, round(v)]));
