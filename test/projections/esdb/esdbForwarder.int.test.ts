import { EventStoreDBClient, jsonEvent, ANY } from '@eventstore/db-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { ensureCheckpoint } from '../../../src/projections/checkpoint.ts';
import { createEsdbForwarder, ESDB_PROJECTOR } from '../../../src/projections/esdb/esdbForwarder.ts';
import { flightStream, messageStream } from '../../../src/projections/esdb/streamNames.ts';
import type { Projector } from '../../../src/projections/projector.ts';
import { runBatch } from '../../../src/projections/runBatch.ts';
import { startEsdbPeer, type EsdbPeer } from '../../support/esdb/server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/databases.ts';
import { appendAll, type DecisionInput } from '../../support/decisions.ts';
import { decideMessages } from '../support/corpus.ts';
import { readScenario } from '../../support/corpusDir.ts';

const clock = new FakeClock();
let db: TestDatabase;
let peer: EsdbPeer;
let client: EventStoreDBClient;
let decisions: DecisionInput[];

/** What every flight stream must hold: the changes touching that flight, in log order. */
function expectedFlightStreams(ds: readonly DecisionInput[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  ds.forEach((d, i) => {
    for (const [seq, c] of (d.payload.changes ?? []).entries()) {
      const flids = 'flid' in c ? [c.flid] : c.type === 'FlightsArchived' ? c.flids : [];
      for (const flid of flids) {
        const s = flightStream(flid);
        out.set(s, [...(out.get(s) ?? []), `${i + 1}:${seq}:${c.type}`]);
      }
    }
  });
  return out;
}

function actualStream(name: string): string[] {
  return (peer.streams().get(name) ?? [])
    .filter((e) => (e.metadata as { position?: string } | undefined)?.position !== undefined)
    .map((e) => {
      const md = e.metadata as { position: string; seq: number };
      return `${md.position}:${md.seq}:${e.type}`;
    });
}

async function drain(p: Projector): Promise<void> {
  for (;;) {
    const out = await runBatch(db.pool, p, { batchSize: 7, clock });
    if (out.kind === 'idle') return;
  }
}

async function checkpoint(): Promise<string> {
  const { rows } = await db.pool.query('SELECT position FROM projection_checkpoint WHERE name = $1', [ESDB_PROJECTOR]);
  return rows[0].position;
}

beforeAll(async () => {
  db = await createTestDatabase('esdb');
  decisions = decideMessages(readScenario('01-plan-and-operations').files.map((f) => f.xml)).decisions;
});
afterAll(async () => {
  await db.drop();
});
const opened: { peer: EsdbPeer; client: EventStoreDBClient }[] = [];
beforeEach(async () => {
  // a fresh server per test; old ones are shut down at the end (closing a live client can stall)
  peer = await startEsdbPeer();
  client = EventStoreDBClient.connectionString(peer.connectionString);
  opened.push({ peer, client });
  await db.pool.query('DELETE FROM projection_checkpoint WHERE name = $1', [ESDB_PROJECTOR]);
  await ensureCheckpoint(db.pool, ESDB_PROJECTOR);
});
afterAll(async () => {
  for (const o of opened) {
    await o.peer.close();
    void o.client.dispose().catch(() => undefined);
  }
});

describe('EventStoreDB forwarder', () => {
  it('writes every change to its flight stream in log order, and every decision to its message stream', async () => {
    await appendAll(db.pool, decisions);
    await drain(createEsdbForwarder(client, silentLogger));
    const expected = expectedFlightStreams(decisions);
    expect(expected.size).toBeGreaterThanOrEqual(4);
    for (const [stream, events] of expected) expect(actualStream(stream), stream).toEqual(events);
    for (const [i, d] of decisions.entries()) {
      const evs = peer.streams().get(messageStream(d.msgId))!;
      expect(evs.map((e) => e.type)).toEqual([d.kind]);
      expect(evs[0]!.data).toMatchObject({ position: String(i + 1), msgId: d.msgId, kind: d.kind });
    }
    expect(await checkpoint()).toBe(String(decisions.length));
  });

  it('a crash between append and checkpoint neither duplicates nor skips', async () => {
    const forwarder = createEsdbForwarder(client, silentLogger);
    // Appends to the server, then "dies" before the checkpoint commits.
    const crashing: Projector = {
      name: ESDB_PROJECTOR,
      async apply(pg, events, from) {
        await forwarder.apply(pg, events, from);
        throw new Error('killed after append, before checkpoint');
      },
    };
    await expect(runBatch(db.pool, crashing, { batchSize: 10, clock })).rejects.toThrow('killed');
    expect(await checkpoint()).toBe('0');
    const appendedBeforeCrash = [...peer.streams().values()].reduce((n, s) => n + s.length, 0);
    expect(appendedBeforeCrash).toBeGreaterThan(0);
    // A fresh process: nothing cached, must find its place from the streams themselves.
    await drain(createEsdbForwarder(client, silentLogger));
    for (const [stream, events] of expectedFlightStreams(decisions)) expect(actualStream(stream), stream).toEqual(events);
    for (const d of decisions) expect(peer.streams().get(messageStream(d.msgId))!.length).toBe(1);
  });

  it('handles WrongExpectedVersion when another writer appended to a stream', async () => {
    const forwarder = createEsdbForwarder(client, silentLogger);
    const half = Math.floor(decisions.length / 2);
    await runBatch(db.pool, forwarder, { batchSize: half, clock });
    // someone else writes to a flight stream the forwarder has cached
    await client.appendToStream(flightStream('880001'), jsonEvent({ type: 'Foreign', data: { x: 1 } }), { expectedRevision: ANY });
    await drain(forwarder);
    for (const [stream, events] of expectedFlightStreams(decisions)) expect(actualStream(stream), stream).toEqual(events);
    expect(peer.streams().get(flightStream('880001'))!.some((e) => e.type === 'Foreign')).toBe(true);
  });

  it('an outage of the server blocks only this projector, and it catches up afterwards', async () => {
    const forwarder = createEsdbForwarder(client, silentLogger);
    peer.faults.unavailable(true);
    await expect(runBatch(db.pool, forwarder, { batchSize: 10, clock })).rejects.toThrow();
    expect(await checkpoint()).toBe('0');
    peer.faults.unavailable(false);
    await drain(forwarder);
    expect(await checkpoint()).toBe(String(decisions.length));
    for (const [stream, events] of expectedFlightStreams(decisions)) expect(actualStream(stream), stream).toEqual(events);
  });
});
