import { createServer, type Server, type Socket } from 'node:net';
import type { BrokerContext } from './apis/api.ts';
import { handlers } from './apis/handlers.ts';
import { CommittedOffsets } from './committedOffsets.ts';
import { serveConnection } from './connection.ts';
import { FaultState } from './faults.ts';
import { GroupCoordinator } from './groupCoordinator.ts';
import { kafkaErrorCode } from './kafkajsInternals.ts';
import type { StoredRecord } from './partitionLog.ts';
import { TopicStore } from './topicStore.ts';

export type { StoredRecord } from './partitionLog.ts';

export interface KafkaBrokerOptions {
  /** Interface to listen on and to advertise; default 127.0.0.1. */
  readonly host?: string;
  /** Default 0 (ephemeral). */
  readonly port?: number;
  /** Partitions of auto-created topics; default 1. */
  readonly partitions?: number;
  /** Topics to create up front: name → partition count. */
  readonly topics?: Readonly<Record<string, number>>;
}

export interface KafkaBrokerFaults {
  /** On: drop every open connection and close new ones as soon as they are accepted. */
  refuseConnections(on: boolean): void;
  /**
   * Answer the next `count` Produce requests with `error` (a code or a kafkajs type name such as
   * 'NOT_LEADER_FOR_PARTITION'). With `afterAppend` the batch is stored first, as when a
   * broker's response is lost after the write — an idempotent retry must then not duplicate it.
   */
  failNextProduce(count: number, error: number | string, options?: { readonly afterAppend?: boolean }): void;
  /** Answer the next `requests` requests, then destroy the connection the following one arrives on. */
  dropAfter(requests: number): void;
  /** Stop listening and drop all connections; stored records, offsets and groups are kept. */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  restart(): Promise<void>;
}

export interface KafkaTestBroker {
  readonly port: number;
  /** `['127.0.0.1:port']`, for `new Kafka({ brokers })`. */
  readonly brokers: readonly string[];
  /** Records stored for a topic, by partition then offset. */
  records(topic: string): StoredRecord[];
  /** Resolves with the topic's records once it holds at least `count`; rejects after the timeout. */
  waitFor(topic: string, count: number, options?: { readonly timeoutMs?: number }): Promise<StoredRecord[]>;
  readonly faults: KafkaBrokerFaults;
  /** Connections accepted and refused so far (lets a test wait until a client has retried). */
  stats(): { readonly accepted: number; readonly refused: number };
  /** Failures of the broker itself while serving (expected to stay empty). */
  readonly internalErrors: readonly Error[];
  close(): Promise<void>;
}

const DEFAULT_WAIT_MS = 10_000;
const FIRST_PRODUCER_ID = 1000n;

/** Starts an in-process Kafka broker speaking the wire protocol kafkajs 2.2.4 uses. */
export async function startKafkaBroker(options: KafkaBrokerOptions = {}): Promise<KafkaTestBroker> {
  const host = options.host ?? '127.0.0.1';
  const store = new TopicStore({ defaultPartitions: options.partitions ?? 1, topics: options.topics ?? {} });
  const groups = new GroupCoordinator();
  const faultState = new FaultState();
  const internalErrors: Error[] = [];
  const sockets = new Set<Socket>();
  let nextProducerId = FIRST_PRODUCER_ID;
  let port = options.port ?? 0;
  let refusing = false;
  const stats = { accepted: 0, refused: 0 };
  let server: Server | null = null;
  let closed = false;

  const ctx: BrokerContext = {
    host,
    get port() {
      return port;
    },
    store,
    groups,
    offsets: new CommittedOffsets(),
    faults: faultState,
    supportedApis: handlers.map(({ apiKey, minVersion, maxVersion }) => ({ apiKey, minVersion, maxVersion })),
    allocateProducerId: () => nextProducerId++,
  };
  const handlerByKey = new Map(handlers.map((h) => [h.apiKey, h]));

  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = createServer((socket) => {
        if (refusing) {
          stats.refused += 1;
          socket.destroy();
          return;
        }
        stats.accepted += 1;
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.setNoDelay(true);
        serveConnection(socket, { ctx, handlers: handlerByKey, onInternalError: (e) => internalErrors.push(e) });
      });
      s.once('error', reject);
      s.listen(port, host, () => {
        s.off('error', reject);
        const address = s.address();
        if (address !== null && typeof address === 'object') port = address.port;
        server = s;
        resolve();
      });
    });

  const dropAll = (): void => {
    for (const socket of sockets) socket.destroy();
  };

  const stop = async (): Promise<void> => {
    const s = server;
    server = null;
    dropAll();
    if (s !== null) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();

  return {
    get port() {
      return port;
    },
    get brokers() {
      return [`${host}:${port}`];
    },
    records: (topic) => store.records(topic),
    stats: () => ({ ...stats }),
    waitFor: (topic, count, waitOptions = {}) =>
      waitForRecords(store, topic, count, waitOptions.timeoutMs ?? DEFAULT_WAIT_MS),
    internalErrors,
    faults: {
      refuseConnections(on) {
        refusing = on;
        if (on) dropAll();
      },
      failNextProduce(count, error, failOptions = {}) {
        const errorCode = typeof error === 'number' ? error : kafkaErrorCode(error);
        faultState.failNextProduce(count, { errorCode, afterAppend: failOptions.afterAppend ?? false });
      },
      dropAfter: (requests) => faultState.dropAfter(requests),
      stop,
      restart: async () => {
        if (closed) throw new Error('restart() after close()');
        if (server === null) await listen();
      },
    },
    async close() {
      closed = true;
      await stop();
      groups.close();
    },
  };
}

function waitForRecords(store: TopicStore, topic: string, count: number, timeoutMs: number): Promise<StoredRecord[]> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const records = store.records(topic);
      if (records.length < count) return false;
      clearTimeout(timer);
      unsubscribe();
      resolve(records);
      return true;
    };
    const timer = setTimeout(() => {
      unsubscribe();
      const have = store.records(topic).length;
      reject(new Error(`waitFor(${topic}): ${have} of ${count} records after ${timeoutMs} ms`));
    }, timeoutMs);
    const unsubscribe = store.onAppend((t) => {
      if (t === topic) check();
    });
    check();
  });
}
