/**
 * The EventStoreDB forwarder and decisions larger than the server takes in one append
 * (docs/scaling.md "EventStoreDB"): EventStoreDB refuses an append whose events add up to more
 * than its MaxAppendSize (1 MiB by default, at most 16 MiB), and a plan of 21,000 flights is a
 * decision of ~46 MB. The forwarder sends such a decision to its message stream in a bounded form
 * (no payload, its size and log position named), and a stream's events in appends within the
 * bound; before, it sent the whole decision in one append, was refused, and retried it forever.
 * Against the in-process wire peer, with its MaxAppendSize set low so small decisions cross it.
 */
import { EventStoreDBClient, MaxAppendSizeExceededError } from '@eventstore/db-client';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { ensureCheckpoint } from '../../../src/projections/checkpoint.ts';
import { createEsdbForwarder, ESDB_PROJECTOR } from '../../../src/projections/esdb/esdbForwarder.ts';
import { flightStream, messageStream } from '../../../src/projections/esdb/streamNames.ts';
import { runBatch } from '../../../src/projections/runBatch.ts';
import { fltr, schdXml } from '../../domain/support/buildXml.ts';
import { fileDatabase } from '../../support/fileDatabase.ts';
import { appendAll, type DecisionInput } from '../../support/decisions.ts';
import { startEsdbPeer, type EsdbPeer } from '../../support/esdb/server.ts';
import { estt } from '../../write/support/messages.ts';
import { decideMessages } from '../support/corpus.ts';

const MAX = 16 * 1024;
const FLIGHTS = 300;
const ESTIMATES = 100;
const db = fileDatabase('esdbbig');
const clock = new FakeClock();
let decisions: DecisionInput[];
const opened: { peer: EsdbPeer; client: EventStoreDBClient }[] = [];

function connect(): { peer: EsdbPeer; client: EventStoreDBClient } {
  return opened.at(-1)!;
}

beforeAll(async () => {
  const plan = schdXml('ADFT', Array.from({ length: FLIGHTS }, (_, i) => fltr(String(900_000 + i), '14MAR250930')), { seqn: '1' });
  // One flight changed by many messages: its stream gets them all in one batch.
  const moves = Array.from({ length: ESTIMATES }, (_, i) => estt(2 + i, '900000', `14MAR25${String(10 + Math.floor(i / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}`));
  decisions = decideMessages([plan, ...moves]).decisions;
  await appendAll(db.pool, decisions);
});
afterAll(async () => {
  for (const o of opened) {
    await o.peer.close();
    void o.client.dispose().catch(() => undefined);
  }
});
beforeEach(async () => {
  const peer = await startEsdbPeer({ maxAppendBytes: MAX });
  opened.push({ peer, client: EventStoreDBClient.connectionString(peer.connectionString) });
  await db.pool.query('DELETE FROM projection_checkpoint WHERE name = $1', [ESDB_PROJECTOR]);
  await ensureCheckpoint(db.pool, ESDB_PROJECTOR);
});

const checkpoint = async (): Promise<string> =>
  (await db.pool.query<{ position: string }>('SELECT position::text FROM projection_checkpoint WHERE name = $1', [ESDB_PROJECTOR])).rows[0]!.position;
const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

it('a decision larger than one append goes to its message stream bounded; every change reaches its flight stream in appends within the bound', { timeout: 120_000 }, async () => {
  const { peer, client } = connect();
  const forwarder = createEsdbForwarder(client, silentLogger, { maxAppendBytes: MAX });
  expect(await runBatch(db.pool, forwarder, { batchSize: 500, clock })).toMatchObject({ kind: 'applied', count: decisions.length });
  expect(await checkpoint()).toBe(String(decisions.length));
  const streams = peer.streams();

  // The plan: its message stream holds the decision without payload, naming its size and position.
  const [planEvent, ...more] = streams.get(messageStream(decisions[0]!.msgId))!;
  expect(more).toEqual([]);
  const data = planEvent!.data as Record<string, unknown> & { omitted: { bytes: number; reason: string } };
  expect(data).toMatchObject({ position: '1', kind: 'Applied', flidCount: FLIGHTS, changeCount: decisions[0]!.payload.changes!.length });
  expect(data).not.toHaveProperty('payload');
  expect(data.omitted.bytes).toBeGreaterThan(MAX);
  expect(data.omitted.reason).toMatch(/at position 1$/);
  expect(jsonBytes(data)).toBeLessThan(MAX);
  // Each created flight in full in its own stream.
  for (const i of [0, 1, FLIGHTS - 1]) {
    const [created] = streams.get(flightStream(String(900_000 + i)))!;
    expect(created!.data).toMatchObject({ type: 'FlightCreated', flid: String(900_000 + i) });
    expect(created!.data).not.toHaveProperty('omitted');
  }

  // The flight every message moved: more than one append's worth, all there, in log order.
  const moved = streams.get(flightStream('900000'))!;
  expect(moved.length).toBe(1 + ESTIMATES);
  expect(moved.reduce((n, e) => n + jsonBytes(e.data) + jsonBytes(e.metadata), 0)).toBeGreaterThan(MAX);
  const positions = moved.map((e) => Number((e.metadata as { position: string }).position));
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
  // The small decisions go whole.
  expect(streams.get(messageStream(decisions[1]!.msgId))![0]!.data).toHaveProperty('payload');
});

it('the server refuses an append over its MaxAppendSize: a forwarder that ignored the bound would retry the batch forever', { timeout: 60_000 }, async () => {
  const { client } = connect();
  const unbounded = createEsdbForwarder(client, silentLogger, { maxAppendBytes: 1024 * MAX });
  await expect(runBatch(db.pool, unbounded, { batchSize: 500, clock })).rejects.toBeInstanceOf(MaxAppendSizeExceededError);
  expect(await checkpoint()).toBe('0');
});
