import {
  Kafka,
  logLevel,
  Partitioners,
  type Admin,
  type ICustomPartitioner,
  type Message,
  type Producer,
  type RecordMetadata,
  type RetryOptions,
  type logCreator,
} from 'kafkajs';
import type { Logger } from '../../platform/logger.ts';
import type { KafkaSink, RecordRef, SinkRecord } from './kafkaSink.ts';
import { kafkaFailure, needsNewProducer } from './kafkaErrors.ts';
import { assertProducerGuarantees, buildProducerConfig, PRODUCER_GUARANTEES } from './producerConfig.ts';
import { installFastCrc32c } from './crc32c.ts';

export interface KafkajsSinkOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly log: Logger;
  /** Producer settings on top of the guarantees; anything that would weaken them is refused. */
  readonly producer?: Readonly<Record<string, unknown>>;
  /** Client-level retry of connecting / metadata. */
  readonly retry?: RetryOptions;
  readonly connectionTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
}

/**
 * The Kafka sink over kafkajs. The producer is built from `buildProducerConfig` (acks=-1,
 * idempotent, maxInFlightRequests=1; construction throws ProducerSafetyError otherwise) and
 * connected lazily, so msgx starts while the cluster is down; sends then fail as transient.
 */
export function createKafkajsSink(opts: KafkajsSinkOptions): KafkaSink {
  const producerConfig = buildProducerConfig(opts.producer);
  const log = opts.log;
  // kafkajs checksums every record batch; its own CRC-32C is a byte-at-a-time loop (crc32c.ts).
  if (!installFastCrc32c()) log.debug('kafkajs record batches keep its own CRC-32C (its encoder was loaded before)');
  const kafka = new Kafka({
    clientId: opts.clientId,
    brokers: [...opts.brokers],
    logLevel: logLevel.WARN,
    logCreator: pinoLogCreator(log),
    retry: opts.retry ?? { retries: 3, initialRetryTime: 200, maxRetryTime: 2000 },
    connectionTimeout: opts.connectionTimeoutMs ?? 3000,
    requestTimeout: opts.requestTimeoutMs ?? 10_000,
  });

  // The partition each message went to, so every row gets its own partition/offset ref.
  const partitionOf = new WeakMap<Message, number>();
  const createPartitioner: ICustomPartitioner = () => {
    const inner = Partitioners.DefaultPartitioner();
    return (args) => {
      const p = inner(args);
      partitionOf.set(args.message, p);
      return p;
    };
  };

  let producer: Promise<Producer> | null = null;
  let admin: Promise<Admin> | null = null;

  const getProducer = (): Promise<Producer> => {
    producer ??= (async () => {
      const config = { ...producerConfig, createPartitioner };
      assertProducerGuarantees(config);
      const p = kafka.producer(config);
      try {
        await p.connect();
      } catch (err) {
        await p.disconnect().catch(() => undefined);
        throw err;
      }
      return p;
    })();
    const current = producer;
    current.catch(() => {
      if (producer === current) producer = null;
    });
    return current;
  };

  const dropProducer = async (): Promise<void> => {
    const p = producer;
    producer = null;
    if (p) await p.then((x) => x.disconnect()).catch(() => undefined);
  };

  return {
    kind: 'kafka',
    description: `Kafka ${opts.brokers.join(',')}`,
    async send(topic: string, records: readonly SinkRecord[]): Promise<RecordRef[]> {
      const messages: Message[] = records.map((r) => ({ key: r.key, value: r.value, headers: { ...r.headers } }));
      let meta: RecordMetadata[];
      try {
        const p = await getProducer();
        meta = await p.send({ topic, messages, acks: PRODUCER_GUARANTEES.acks });
      } catch (err) {
        if (needsNewProducer(err)) {
          log.warn({ err }, 'Kafka producer id rejected by the broker; starting a new producer');
          await dropProducer();
        }
        throw kafkaFailure(err, topic);
      }
      return refsFor(topic, messages, meta, partitionOf);
    },
    async check(): Promise<void> {
      admin ??= (async () => {
        const a = kafka.admin();
        await a.connect();
        return a;
      })();
      const current = admin;
      try {
        await (await current).describeCluster();
      } catch (err) {
        if (admin === current) admin = null;
        await current.then((a) => a.disconnect()).catch(() => undefined);
        throw err;
      }
    },
    async close(): Promise<void> {
      await dropProducer();
      const a = admin;
      admin = null;
      if (a) await a.then((x) => x.disconnect()).catch(() => undefined);
    },
  };
}

/** One {topic, partition, offset} per message: offsets within a partition follow the send order. */
function refsFor(
  topic: string,
  messages: readonly Message[],
  meta: readonly RecordMetadata[],
  partitionOf: WeakMap<Message, number>,
): RecordRef[] {
  const base = new Map(meta.filter((m) => m.topicName === topic).map((m) => [m.partition, BigInt(m.baseOffset ?? m.offset ?? '0')]));
  const only = base.size === 1 ? [...base.keys()][0]! : undefined;
  const seen = new Map<number, bigint>();
  return messages.map((m) => {
    const partition = partitionOf.get(m) ?? only ?? 0;
    const index = seen.get(partition) ?? 0n;
    seen.set(partition, index + 1n);
    return { topic, partition, offset: String((base.get(partition) ?? 0n) + index) };
  });
}

/**
 * kafkajs's log lines into ours. Its per-try chatter — connection errors and every failed try of
 * a retried operation (lines with a `retryCount`) — goes to debug: while a broker is down it
 * repeats many times a second, and the outcome that matters (a failed send, a failed readiness
 * check) is reported once by the dispatcher and by /readyz.
 */
function pinoLogCreator(log: Logger): logCreator {
  const scoped = log.child({ scope: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }) => {
      const { message, timestamp: _t, logger: _l, ...extra } = entry as { message: string; timestamp?: string; logger?: string; [k: string]: unknown };
      const fields = { namespace, ...extra };
      const perTry = namespace === 'Connection' || 'retryCount' in extra;
      if (perTry) scoped.debug(fields, message);
      else if (level === logLevel.ERROR || level === logLevel.WARN) scoped.warn(fields, message);
      else if (level === logLevel.INFO) scoped.info(fields, message);
      else scoped.debug(fields, message);
    };
}
