import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  binaryEvent,
  END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  type ReadStreamOptions,
} from '@eventstore/db-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEsdbPeer, type EsdbPeer, type EsdbPeerOptions } from './esdb/server.ts';

async function peerAndClient(options?: EsdbPeerOptions): Promise<{ peer: EsdbPeer; client: EventStoreDBClient }> {
  const peer = await startEsdbPeer(options);
  const client = EventStoreDBClient.connectionString(peer.connectionString);
  onTestFinished(async () => {
    await client.dispose();
    await peer.close();
  });
  return { peer, client };
}

const event = (type: string, n: number) => jsonEvent({ type, data: { n } });

async function read(client: EventStoreDBClient, stream: string, options?: ReadStreamOptions) {
  const events = [];
  for await (const resolved of client.readStream(stream, options)) {
    if (resolved.event !== undefined) events.push(resolved.event);
  }
  return events;
}

async function wrongExpectedVersion(append: Promise<unknown>): Promise<WrongExpectedVersionError> {
  const error = await append.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrongExpectedVersionError);
  return error as WrongExpectedVersionError;
}

describe('in-process EventStoreDB peer with @eventstore/db-client', () => {
  it('appends with no_stream, an exact revision, stream_exists and any', async () => {
    const { peer, client } = await peerAndClient();
    const first = await client.appendToStream('order-1', event('Created', 0), { expectedRevision: NO_STREAM });
    const second = await client.appendToStream('order-1', event('Changed', 1), { expectedRevision: 0n });
    const third = await client.appendToStream('order-1', event('Changed', 2), { expectedRevision: STREAM_EXISTS });
    const fourth = await client.appendToStream('order-1', [event('Changed', 3), event('Closed', 4)], {
      expectedRevision: ANY,
    });

    expect([first, second, third, fourth].map((r) => [r.success, r.nextExpectedRevision])).toEqual([
      [true, 0n],
      [true, 1n],
      [true, 2n],
      [true, 4n],
    ]);
    expect((fourth.position?.commit ?? -1n) > (first.position?.commit ?? -1n)).toBe(true);
    const stored = peer.streams().get('order-1') ?? [];
    expect(stored.map((e) => [e.revision, e.type, e.data])).toEqual([
      [0n, 'Created', { n: 0 }],
      [1n, 'Changed', { n: 1 }],
      [2n, 'Changed', { n: 2 }],
      [3n, 'Changed', { n: 3 }],
      [4n, 'Closed', { n: 4 }],
    ]);
  });

  it('rejects stale expectations with WrongExpectedVersionError and writes nothing', async () => {
    const { peer, client } = await peerAndClient();
    await client.appendToStream('account-1', event('Opened', 0), { expectedRevision: NO_STREAM });

    const again = await wrongExpectedVersion(
      client.appendToStream('account-1', event('Opened', 1), { expectedRevision: NO_STREAM }),
    );
    const ahead = await wrongExpectedVersion(
      client.appendToStream('account-1', event('Deposited', 2), { expectedRevision: 5n }),
    );
    const missing = await wrongExpectedVersion(
      client.appendToStream('account-2', event('Deposited', 3), { expectedRevision: STREAM_EXISTS }),
    );
    const missingExact = await wrongExpectedVersion(
      client.appendToStream('account-3', event('Deposited', 4), { expectedRevision: 0n }),
    );

    expect([again, ahead, missing, missingExact].map((e) => [e.streamName, e.expectedVersion, e.actualVersion])).toEqual([
      ['account-1', 'no_stream', 0n],
      ['account-1', 5n, 0n],
      ['account-2', 'stream_exists', 'no_stream'],
      ['account-3', 0n, 'no_stream'],
    ]);
    expect([...peer.streams().keys()]).toEqual(['account-1']);
    expect(peer.streams().get('account-1')?.length).toBe(1);
  });

  it('reads a stream forwards and backwards from start, end or a revision, with a max count', async () => {
    const { client } = await peerAndClient();
    await client.appendToStream(
      'ledger',
      [0, 1, 2, 3, 4].map((n) => event('Posted', n)),
      { expectedRevision: NO_STREAM },
    );
    const revisions = async (options: ReadStreamOptions) => (await read(client, 'ledger', options)).map((e) => e.revision);

    expect(await revisions({ direction: FORWARDS, fromRevision: START })).toEqual([0n, 1n, 2n, 3n, 4n]);
    expect(await revisions({ direction: FORWARDS, fromRevision: 2n, maxCount: 2 })).toEqual([2n, 3n]);
    expect(await revisions({ direction: FORWARDS, fromRevision: END })).toEqual([]);
    expect(await revisions({ direction: BACKWARDS, fromRevision: END })).toEqual([4n, 3n, 2n, 1n, 0n]);
    expect(await revisions({ direction: BACKWARDS, fromRevision: END, maxCount: 1 })).toEqual([4n]);
    expect(await revisions({ direction: BACKWARDS, fromRevision: 3n, maxCount: 2 })).toEqual([3n, 2n]);
  });

  it('fails reading a missing stream with StreamNotFoundError', async () => {
    const { client } = await peerAndClient();
    await expect(read(client, 'nobody-here')).rejects.toBeInstanceOf(StreamNotFoundError);
    await expect(read(client, 'nobody-here')).rejects.toMatchObject({ streamName: 'nobody-here' });
  });

  it('preserves event ids, types, data, metadata and the created time', async () => {
    const createdAt = Date.UTC(2024, 4, 1, 12, 30, 15, 250);
    const { peer, client } = await peerAndClient({ now: () => createdAt });
    const id = randomUUID();
    const binaryId = randomUUID();
    await client.appendToStream(
      'flight-7',
      [
        jsonEvent({ id, type: 'Boarded', data: { seat: '12A', pax: 1 }, metadata: { causationId: 'msg-9' } }),
        binaryEvent({ id: binaryId, type: 'Raw', data: Uint8Array.from([1, 2, 3]) }),
      ],
      { expectedRevision: NO_STREAM },
    );

    const [json, binary] = await read(client, 'flight-7');
    expect(json).toMatchObject({
      streamId: 'flight-7',
      id,
      type: 'Boarded',
      data: { seat: '12A', pax: 1 },
      metadata: { causationId: 'msg-9' },
      isJson: true,
      revision: 0n,
      created: new Date(createdAt),
    });
    expect(binary).toMatchObject({ id: binaryId, type: 'Raw', isJson: false, revision: 1n });
    expect(Array.from(binary?.data as Uint8Array)).toEqual([1, 2, 3]);
    expect(peer.streams().get('flight-7')?.[0]).toMatchObject({
      id,
      type: 'Boarded',
      data: { seat: '12A', pax: 1 },
      metadata: { causationId: 'msg-9' },
      revision: 0n,
    });
  });

  it('treats a retried append of the same event ids as already written', async () => {
    const { peer, client } = await peerAndClient();
    const events = [jsonEvent({ id: randomUUID(), type: 'A', data: {} }), jsonEvent({ id: randomUUID(), type: 'B', data: {} })];
    await client.appendToStream('idem', events, { expectedRevision: NO_STREAM });
    const retried = await client.appendToStream('idem', events, { expectedRevision: NO_STREAM });
    const retriedAny = await client.appendToStream('idem', events, { expectedRevision: ANY });

    expect([retried.nextExpectedRevision, retriedAny.nextExpectedRevision]).toEqual([1n, 1n]);
    expect(peer.streams().get('idem')?.map((e) => e.type)).toEqual(['A', 'B']);
  });

  it('fails calls with UnavailableError while unavailable, then recovers', async () => {
    const { peer, client } = await peerAndClient();
    await client.appendToStream('ops', event('Before', 0), { expectedRevision: NO_STREAM });

    peer.faults.unavailable(true);
    await expect(client.appendToStream('ops', event('During', 1), { expectedRevision: 0n })).rejects.toBeInstanceOf(
      UnavailableError,
    );
    await expect(read(client, 'ops')).rejects.toBeInstanceOf(UnavailableError);
    peer.faults.unavailable(false);
    const after = await client.appendToStream('ops', event('After', 1), { expectedRevision: 0n });

    expect(after.nextExpectedRevision).toBe(1n);
    expect((await read(client, 'ops')).map((e) => e.type)).toEqual(['Before', 'After']);
  });
});
