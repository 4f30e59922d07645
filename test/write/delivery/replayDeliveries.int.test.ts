import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { replayDeliveriesCommand } from '../../../src/cli/replayDeliveriesCommand.ts';
import { FakeClock } from '../../../src/platform/clock.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { createPgMailbox } from '../../../src/platform/mailbox/pgMailbox.ts';
import type { Dispatcher } from '../../../src/write/delivery/dispatcher.ts';
import { startKafkaBroker, type KafkaTestBroker } from '../../support/kafka/broker.ts';
import { fileDatabase } from '../../support/fileDatabase.ts';
import { waitFor } from '../../support/waitFor.ts';
import { brokerSink, OutboxWriter, rowStates, startDispatcher, testConfig } from './outboxFixture.ts';

const db = fileDatabase('delivery_replay');
let broker: KafkaTestBroker;
let clock: FakeClock;
let dispatcher: Dispatcher;
let out: OutboxWriter;

beforeAll(async () => {
  broker = await startKafkaBroker({ topics: { msg: 1 } });
  clock = new FakeClock('2025-03-14T00:00:00Z');
  out = new OutboxWriter(db.pool, clock);
  dispatcher = await startDispatcher({
    pool: db.pool,
    url: db.url,
    mailbox: createPgMailbox(db.pool, 'Asia/Shanghai'),
    sink: brokerSink(broker),
    clock,
    cfg: testConfig({ MSGX_KAFKA_BROKERS: broker.brokers[0]! }),
  });
});
afterAll(async () => {
  await dispatcher?.stop();
  await broker?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function runCli(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const code = await replayDeliveriesCommand.run(args, { cfg: testConfig({ MSGX_DATABASE_URL: db.url }), log: silentLogger });
  vi.restoreAllMocks();
  return { code, stdout };
}

/** Make the next `n` rows DEAD: the broker refuses them MSGX_MAX_ATTEMPTS (3) times each. */
async function deadRows(flids: string[]): Promise<string[]> {
  broker.faults.failNextProduce(3 * flids.length, 'INVALID_RECORD');
  const ids: string[] = [];
  for (const flid of flids) {
    const [id] = await out.insert([out.msg(flid, `7${flid}`, { type: 'FlightUpdated' })]);
    ids.push(id!);
    await waitFor(
      async () => {
        const row = (await rowStates(db.pool, 'KAFKA_MSG')).find((r) => r.eventId === id);
        if (row?.state === 'DEAD') return true;
        clock.advance(2000);
        return false;
      },
      { what: `event ${id} DEAD`, intervalMs: 50 },
    );
  }
  return ids;
}

const decisions = async () =>
  (await db.pool.query('SELECT position, msg_id, kind, flids, payload FROM decision_event ORDER BY position')).rows;

describe('msgx replay-deliveries', () => {
  it('moves DEAD rows of a target back to PENDING with attempts reset, audits it in the log, and the dispatcher sends them', async () => {
    const [a, b] = await deadRows(['10', '20']);
    expect(broker.records('msg')).toEqual([]);
    const lastBefore = (await db.pool.query('SELECT last_position FROM pipeline_lock')).rows[0].last_position;

    const { code, stdout } = await runCli(['--target', 'KAFKA_MSG']);
    expect(code).toBe(0);
    const position = String(BigInt(lastBefore) + 1n);
    expect(stdout).toContain(`replayed 2 KAFKA_MSG deliveries (DEAD -> PENDING, attempts reset): ${a}, ${b}`);
    expect(stdout).toContain(`DeliveryReplayRequested at position ${position}`);

    const [audit] = (await decisions()).filter((d) => d.kind === 'DeliveryReplayRequested');
    expect(audit).toMatchObject({ position, msg_id: null, flids: ['10', '20'], payload: { target: 'KAFKA_MSG', eventIds: [a, b] } });
    expect((await db.pool.query('SELECT last_position FROM pipeline_lock')).rows[0].last_position).toBe(position);

    const records = await broker.waitFor('msg', 2);
    expect(records.map((r) => r.headers['event-id'])).toEqual([a, b]);
    const states = await waitFor(async () => {
      const s = await rowStates(db.pool, 'KAFKA_MSG');
      return s.every((r) => r.state === 'SENT') ? s : null;
    });
    expect(states.map((s) => s.attempts)).toEqual([0, 0]);
  });

  it('--ids replays only those; ids that are not DEAD are reported and left alone; nothing DEAD appends nothing', async () => {
    const [c, d] = await deadRows(['30', '40']);
    const before = (await decisions()).length;
    const { stdout } = await runCli(['--target', 'KAFKA_MSG', '--ids', `${d},999999`]);
    expect(stdout).toContain(`replayed 1 KAFKA_MSG deliveries (DEAD -> PENDING, attempts reset): ${d}`);
    expect(stdout).toContain('not DEAD KAFKA_MSG deliveries, left alone: 999999');
    await broker.waitFor('msg', 3);
    expect((await rowStates(db.pool, 'KAFKA_MSG')).find((r) => r.eventId === c)?.state).toBe('DEAD');

    const none = await runCli(['--target', 'COUTMSGS']);
    expect(none.stdout).toBe('no DEAD COUTMSGS deliveries; nothing replayed\n');
    expect((await decisions()).length).toBe(before + 1);
  });

  it('refuses an unknown target with a usage error', async () => {
    await expect(runCli(['--target', 'KAFKA'])).rejects.toThrow(/^target must be one of KAFKA_MSG, KAFKA_SCHD, COUTMSGS/);
  });
});
