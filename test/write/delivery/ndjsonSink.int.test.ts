import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.ts';
import { createLogger } from '../../../src/platform/logger.ts';
import { createPgMailbox } from '../../../src/platform/mailbox/pgMailbox.ts';
import { createKafkaSink } from '../../../src/write/delivery/createKafkaSink.ts';
import type { Dispatcher } from '../../../src/write/delivery/dispatcher.ts';
import { fileDatabase } from '../../support/fileDatabase.ts';
import { waitFor } from '../../support/waitFor.ts';
import { OutboxWriter, rowStates, startDispatcher, testConfig } from './outboxFixture.ts';

const db = fileDatabase('delivery_ndjson');
let dataDir: string;
let dispatcher: Dispatcher | undefined;
const logLines: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-ndjson-'));
});
afterAll(async () => {
  await dispatcher?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

interface Line {
  topic: string;
  key: string | null;
  value: unknown;
  headers: Record<string, string>;
  eventIds: string[];
}
const readLines = async (topic: string): Promise<Line[]> =>
  (await readFile(path.join(dataDir, 'out', `${topic}.ndjson`), 'utf8').catch(() => ''))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);

describe('no Kafka configured: the local NDJSON sink', () => {
  it('writes the same records with headers to MSGX_DATA_DIR/out/<topic>.ndjson and says so in the log', async () => {
    const cfg = testConfig({ MSGX_DATA_DIR: dataDir, MSGX_KAFKA_TOPIC_MSG: 'flight-msg' });
    expect(cfg.kafka.brokers).toBeUndefined();
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const sink = createKafkaSink(cfg, createLogger('info', stream));
    expect(sink.kind).toBe('file');
    await sink.check(); // always ready
    await waitFor(() => logLines.some((l) => /LOCAL NDJSON sink/.test(l)), { what: 'sink log line' });
    expect(JSON.parse(logLines.find((l) => /LOCAL NDJSON sink/.test(l))!)).toMatchObject({
      level: 40,
      dir: path.join(dataDir, 'out'),
      files: ['flight-msg.ndjson', 'schd.ndjson'],
    });

    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const out = new OutboxWriter(db.pool, clock);
    dispatcher = await startDispatcher({ pool: db.pool, url: db.url, mailbox: createPgMailbox(db.pool, 'Asia/Shanghai'), sink, clock, cfg });
    const ids = await out.insert([
      out.msg('101', '5001', { type: 'FlightUpdated', n: 1 }),
      { target: 'KAFKA_SCHD', flid: '101', payload: { flid: '101', v: 1 } },
      out.msg('202', '5002', { type: 'FlightUpdated', n: 2 }),
      { target: 'KAFKA_SCHD', flid: '101', payload: { flid: '101', v: 2 } },
    ]);
    clock.advance(3000);
    await waitFor(async () => (await db.pool.query("SELECT 1 FROM msg_event WHERE state <> 'SENT'")).rowCount === 0, { what: 'all sent' });

    const msg = await readLines('flight-msg');
    expect(msg).toEqual([
      {
        topic: 'flight-msg',
        key: '101',
        value: expect.objectContaining({ type: 'FlightUpdated', flid: '101', msgId: '5001', change: { type: 'FlightUpdated', n: 1 } }),
        headers: { 'msg-id': '5001', 'event-id': ids[0], 'log-position': '1' },
        eventIds: [ids[0]],
      },
      {
        topic: 'flight-msg',
        key: '202',
        value: expect.objectContaining({ msgId: '5002' }),
        headers: { 'msg-id': '5002', 'event-id': ids[2], 'log-position': '3' },
        eventIds: [ids[2]],
      },
    ]);
    const schd = await readLines('schd');
    expect(schd).toEqual([
      {
        topic: 'schd',
        key: 'schd',
        value: [{ flid: '101', v: 2 }],
        headers: { 'event-id-first': ids[1], 'event-id-last': ids[3], 'log-position': '4', flights: '1' },
        eventIds: [ids[1], ids[3]],
      },
    ]);
    // delivery_ref: the byte offset of each record's line
    const refs = (await rowStates(db.pool, 'KAFKA_MSG')).map((r) => r.deliveryRef);
    const file = path.join(dataDir, 'out', 'flight-msg.ndjson');
    const firstLineBytes = Buffer.byteLength(JSON.stringify(msg[0]) + '\n');
    expect(refs).toEqual([
      { topic: 'flight-msg', file, byteOffset: 0 },
      { topic: 'flight-msg', file, byteOffset: firstLineBytes },
    ]);
  });
});
