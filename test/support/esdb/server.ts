import { Server, ServerCredentials } from '@grpc/grpc-js';
import { appendCall } from './appendCall.ts';
import { EventStreams, type RecordedEvent } from './eventStreams.ts';
import { streamsGrpc } from './grpcModules.ts';
import { readCall } from './readCall.ts';

/** A stored event as the client would decode it. */
export interface EsdbPeerEvent {
  readonly id: string;
  readonly type: string;
  /** Parsed JSON for `application/json` events, otherwise the raw bytes. */
  readonly data: unknown;
  /** Parsed JSON custom metadata; raw bytes when not JSON; undefined when empty. */
  readonly metadata: unknown;
  readonly revision: bigint;
  /** Position in the global log (commit = prepare). */
  readonly position: bigint;
  readonly created: Date;
}

export interface EsdbPeer {
  readonly port: number;
  /** `esdb://127.0.0.1:PORT?tls=false`, for `EventStoreDBClient.connectionString`. */
  readonly connectionString: string;
  /** Snapshot of every stream, events in revision order. */
  streams(): Map<string, EsdbPeerEvent[]>;
  readonly faults: {
    /** On: every call fails with gRPC UNAVAILABLE, nothing is written. */
    unavailable(on: boolean): void;
  };
  /** Stops the server, cancelling calls still in flight. */
  close(): Promise<void>;
}

export interface EsdbPeerOptions {
  /** Clock for events' `created`; default Date.now. */
  readonly now?: () => number;
  /** MaxAppendSize: the server's default is 1 MiB per append (data + metadata of its events). */
  readonly maxAppendBytes?: number;
}

/**
 * An in-process gRPC server implementing EventStoreDB's Streams.Append and Streams.Read with the
 * service definitions shipped in @eventstore/db-client. Every other service and method answers
 * UNIMPLEMENTED; the client then assumes an old server (no ServerFeatures) and uses Append
 * rather than BatchAppend.
 */
export async function startEsdbPeer(options: EsdbPeerOptions = {}): Promise<EsdbPeer> {
  const streams = new EventStreams();
  let unavailable = false;
  const isUnavailable = (): boolean => unavailable;
  const server = new Server();
  server.addService(streamsGrpc.StreamsService, {
    append: appendCall({ streams, isUnavailable, now: options.now ?? Date.now, maxAppendBytes: options.maxAppendBytes ?? 1024 * 1024 }),
    read: readCall({ streams, isUnavailable }),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error === null ? resolve(bound) : reject(new Error('EventStoreDB test peer could not bind', { cause: error })),
    ),
  );
  return {
    port,
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    streams: () => new Map([...streams.all()].map(([name, events]) => [name, events.map(toPeerEvent)])),
    faults: {
      unavailable(on) {
        unavailable = on;
      },
    },
    close: async () => server.forceShutdown(),
  };
}

function toPeerEvent(event: RecordedEvent): EsdbPeerEvent {
  return {
    id: event.id,
    type: event.type,
    data: event.contentType === 'application/json' ? parseJson(event.data) : event.data,
    metadata: event.customMetadata.length === 0 ? undefined : parseJson(event.customMetadata),
    revision: event.revision,
    position: event.position,
    created: new Date(Number(event.createdTicks / 10_000n)),
  };
}

/** Like the client: JSON when it parses, the bytes otherwise. */
function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return bytes;
  }
}
