import { Kafka, logLevel, Partitioners, type Consumer, type IHeaders, type Producer, type RetryOptions } from 'kafkajs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startKafkaBroker, type KafkaBrokerOptions, type KafkaTestBroker } from './kafka/broker.ts';
import { waitFor } from './waitFor.ts';

interface Received {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: Record<string, string>;
}

const FAST_RETRY: RetryOptions = { initialRetryTime: 50, maxRetryTime: 500, retries: 10 };
/** Fetches long-poll like a real broker's; disconnect() waits for the one in flight, so keep it short. */
const CONSUMER = { retry: FAST_RETRY, maxWaitTimeInMs: 100 } as const;

async function broker(options?: KafkaBrokerOptions): Promise<KafkaTestBroker> {
  const b = await startKafkaBroker(options);
  onTestFinished(async () => {
    await b.close();
    expect(b.internalErrors).toEqual([]);
  });
  return b;
}

function kafkaFor(b: KafkaTestBroker, retry: RetryOptions = FAST_RETRY): Kafka {
  return new Kafka({ clientId: 'peer-test', brokers: [...b.brokers], logLevel: logLevel.NOTHING, retry });
}

async function idempotentProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  onTestFinished(() => producer.disconnect());
  return producer;
}

interface Consuming {
  readonly received: Received[];
  readonly consumer: Consumer;
}

/** Runs a group consumer from the beginning of `topic`, collecting what it receives. */
async function consume(
  kafka: Kafka,
  topic: string,
  groupId: string,
  onAssigned?: (partitions: readonly number[]) => void,
): Promise<Consuming> {
  const received: Received[] = [];
  const consumer = kafka.consumer({ groupId, heartbeatInterval: 50, ...CONSUMER });
  onTestFinished(() => consumer.disconnect());
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => onAssigned?.(payload.memberAssignment[topic] ?? []));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      received.push({
        partition,
        offset: message.offset,
        key: message.key?.toString('utf8') ?? null,
        value: message.value?.toString('utf8') ?? null,
        headers: textHeaders(message.headers ?? {}),
      });
    },
  });
  return { received, consumer };
}

function textHeaders(headers: IHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
}

const valuesOf = (records: ReadonlyArray<{ value: string | null }>): Array<string | null> => records.map((r) => r.value);

describe('in-process Kafka broker with kafkajs', () => {
  it('delivers an idempotent producer’s keyed records with headers to a consumer group, in order', async () => {
    const b = await broker();
    const kafka = kafkaFor(b);
    const producer = await idempotentProducer(kafka);
    await producer.send({
      topic: 'orders',
      acks: -1,
      messages: [
        { key: 'k1', value: 'one', headers: { 'msg-id': 'm1', kind: 'created' } },
        { key: 'k2', value: 'two', headers: { 'msg-id': 'm2' } },
      ],
    });
    await producer.send({ topic: 'orders', acks: -1, messages: [{ key: 'k1', value: 'three', headers: { 'msg-id': 'm3' } }] });

    const { received } = await consume(kafka, 'orders', 'readers');
    await waitFor(() => received.length >= 3, { what: 'three records consumed' });

    expect(received).toEqual([
      { partition: 0, offset: '0', key: 'k1', value: 'one', headers: { 'msg-id': 'm1', kind: 'created' } },
      { partition: 0, offset: '1', key: 'k2', value: 'two', headers: { 'msg-id': 'm2' } },
      { partition: 0, offset: '2', key: 'k1', value: 'three', headers: { 'msg-id': 'm3' } },
    ]);
    expect(b.records('orders').map((r) => [r.offset, r.key, r.value, r.headers])).toEqual([
      [0n, 'k1', 'one', { 'msg-id': 'm1', kind: 'created' }],
      [1n, 'k2', 'two', { 'msg-id': 'm2' }],
      [2n, 'k1', 'three', { 'msg-id': 'm3' }],
    ]);
  });

  it('lets a group resume from its committed offset', async () => {
    const b = await broker();
    const kafka = kafkaFor(b);
    const producer = await idempotentProducer(kafka);
    await producer.send({ topic: 'resume', acks: -1, messages: [{ value: 'a' }, { value: 'b' }] });
    const first = await consume(kafka, 'resume', 'g');
    await waitFor(() => first.received.length >= 2, { what: 'first consumer caught up' });
    await first.consumer.disconnect(); // commits, leaves the group

    await producer.send({ topic: 'resume', acks: -1, messages: [{ value: 'c' }] });
    const second = await consume(kafka, 'resume', 'g');
    await waitFor(() => second.received.length >= 1, { what: 'second consumer got the new record' });

    expect(valuesOf(first.received)).toEqual(['a', 'b']);
    expect(valuesOf(second.received)).toEqual(['c']);
  });

  it('keeps per-key order across several partitions', async () => {
    const b = await broker({ partitions: 3 });
    const kafka = kafkaFor(b);
    const producer = await idempotentProducer(kafka);
    const keys = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    for (let round = 0; round < 4; round += 1) {
      await producer.send({
        topic: 'spread',
        acks: -1,
        messages: keys.map((key) => ({ key, value: `${key}-${round}` })),
      });
    }

    const { received } = await consume(kafka, 'spread', 'spread-readers');
    await waitFor(() => received.length >= 20, { what: 'twenty records consumed' });

    expect(new Set(b.records('spread').map((r) => r.partition)).size).toBeGreaterThan(1);
    for (const key of keys) {
      expect(valuesOf(received.filter((r) => r.key === key))).toEqual([0, 1, 2, 3].map((i) => `${key}-${i}`));
    }
  });

  it('creates topics through the admin client with the requested partition count', async () => {
    const b = await broker();
    const admin = kafkaFor(b).admin();
    await admin.connect();
    onTestFinished(() => admin.disconnect());

    expect(await admin.createTopics({ topics: [{ topic: 'wide', numPartitions: 4 }] })).toBe(true);
    expect(await admin.createTopics({ topics: [{ topic: 'wide', numPartitions: 4 }] })).toBe(false);
    const { topics } = await admin.fetchTopicMetadata({ topics: ['wide'] });
    expect(topics[0]?.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2, 3]);
  });

  it('has kafkajs retry retriable produce errors without duplicating records', async () => {
    const b = await broker();
    const producer = await idempotentProducer(kafkaFor(b));
    b.faults.failNextProduce(2, 'NOT_LEADER_FOR_PARTITION');
    await producer.send({ topic: 'retry', acks: -1, messages: [{ key: 'k', value: 'first' }] });
    b.faults.failNextProduce(1, 'REQUEST_TIMED_OUT', { afterAppend: true });
    await producer.send({ topic: 'retry', acks: -1, messages: [{ key: 'k', value: 'second' }] });
    await producer.send({ topic: 'retry', acks: -1, messages: [{ key: 'k', value: 'third' }] });

    expect(valuesOf(b.records('retry'))).toEqual(['first', 'second', 'third']);
  });

  it('duplicates a retried batch when the producer is not idempotent (the fault is real)', async () => {
    const b = await broker();
    const producer = kafkaFor(b).producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    onTestFinished(() => producer.disconnect());
    b.faults.failNextProduce(1, 'REQUEST_TIMED_OUT', { afterAppend: true });
    await producer.send({ topic: 'dup', acks: -1, messages: [{ value: 'once' }] });

    expect(valuesOf(b.records('dup'))).toEqual(['once', 'once']);
  });

  it('survives a dropped connection without losing or duplicating records', async () => {
    const b = await broker();
    const producer = await idempotentProducer(kafkaFor(b));
    await producer.send({ topic: 'drop', acks: -1, messages: [{ value: 'before' }] });
    b.faults.dropAfter(0);
    await producer.send({ topic: 'drop', acks: -1, messages: [{ value: 'across' }] });
    await producer.send({ topic: 'drop', acks: -1, messages: [{ value: 'after' }] });

    expect(valuesOf(b.records('drop'))).toEqual(['before', 'across', 'after']);
  });

  it('fails a send while connections are refused, retries through the outage, keeps per-key order', async () => {
    const b = await broker();
    const kafka = kafkaFor(b);
    const producer = await idempotentProducer(kafka);
    await producer.send({ topic: 'outage', acks: -1, messages: [{ key: 'k', value: 'v1' }] });

    const impatient = await idempotentProducer(kafkaFor(b, { retries: 1, initialRetryTime: 20 }));
    b.faults.refuseConnections(true);
    await expect(impatient.send({ topic: 'outage', acks: -1, messages: [{ key: 'k', value: 'lost' }] })).rejects.toThrow();

    const refusedBefore = b.stats().refused;
    const pending = producer.send({ topic: 'outage', acks: -1, messages: [{ key: 'k', value: 'v2' }] });
    await waitFor(() => b.stats().refused > refusedBefore, { what: 'producer retried during the outage' });
    b.faults.refuseConnections(false);
    await pending;
    await producer.send({ topic: 'outage', acks: -1, messages: [{ key: 'k', value: 'v3' }] });

    expect(valuesOf(b.records('outage'))).toEqual(['v1', 'v2', 'v3']);
    const { received } = await consume(kafka, 'outage', 'outage-readers');
    await waitFor(() => received.length >= 3, { what: 'three records consumed' });
    expect(valuesOf(received)).toEqual(['v1', 'v2', 'v3']);
  });

  it('keeps records and committed offsets across stop() and restart() on the same port', async () => {
    const b = await broker();
    const kafka = kafkaFor(b);
    const producer = await idempotentProducer(kafka);
    await producer.send({ topic: 'restart', acks: -1, messages: [{ value: 'a' }, { value: 'b' }] });
    const committer = await consume(kafka, 'restart', 'committer');
    await waitFor(() => committer.received.length >= 2, { what: 'records before the outage consumed' });
    await committer.consumer.disconnect();
    const { received: live } = await consume(kafka, 'restart', 'live');
    await waitFor(() => live.length >= 2, { what: 'live consumer caught up' });
    const port = b.port;

    await b.faults.stop();
    const impatient = kafkaFor(b, { retries: 0 }).producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await expect(impatient.connect()).rejects.toThrow();
    await b.faults.restart();
    await producer.send({ topic: 'restart', acks: -1, messages: [{ value: 'c' }] });

    expect(b.port).toBe(port);
    expect(valuesOf(b.records('restart'))).toEqual(['a', 'b', 'c']);
    const { received: resumed } = await consume(kafka, 'restart', 'committer');
    await waitFor(() => resumed.length >= 1, { what: 'committer group resumed' });
    expect(valuesOf(resumed)).toEqual(['c']);
    await waitFor(() => live.some((r) => r.value === 'c'), { what: 'live consumer got the record after the restart' });
    // At-least-once: a redelivery after the outage is allowed, a gap or reordering is not.
    expect([...new Set(live.map((r) => `${r.offset}:${r.value}`))]).toEqual(['0:a', '1:b', '2:c']);
  });

  it('splits partitions between two members of a group', async () => {
    const b = await broker({ partitions: 2 });
    const kafka = kafkaFor(b);
    const assignments = new Map<string, readonly number[]>();
    const received = new Map<string, Received[]>();
    for (const name of ['m1', 'm2']) {
      const member = await consume(kafka, 'pair-topic', 'pair', (partitions) => assignments.set(name, partitions));
      received.set(name, member.received);
    }
    await waitFor(() => assignments.get('m1')?.length === 1 && assignments.get('m2')?.length === 1, {
      what: 'one partition per member',
    });

    const producer = await idempotentProducer(kafka);
    await producer.send({
      topic: 'pair-topic',
      acks: -1,
      messages: Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
    });
    const all = (): Received[] => [...(received.get('m1') ?? []), ...(received.get('m2') ?? [])];
    await waitFor(() => all().length >= 10, { what: 'ten records consumed' });

    expect(all().map((r) => r.value).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`).sort());
    for (const name of ['m1', 'm2']) {
      const partitions = new Set((received.get(name) ?? []).map((r) => r.partition));
      expect([...partitions].every((p) => assignments.get(name)?.includes(p))).toBe(true);
    }
  });
});
