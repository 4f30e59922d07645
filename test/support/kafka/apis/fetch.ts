import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder } from '../kafkajsInternals.ts';
import type { TopicStore } from '../topicStore.ts';
import { apiHandler, readTopics, writeTopics, type TopicEntries } from './api.ts';

interface PartitionFetch {
  readonly partition: number;
  readonly fetchOffset: bigint;
  readonly maxBytes: number;
}

type TopicFetch = TopicEntries<PartitionFetch>;

interface PartitionData {
  readonly partition: number;
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly batches: readonly Buffer[];
}

interface Collected {
  readonly topics: readonly TopicEntries<PartitionData>[];
  readonly bytes: number;
  readonly hasError: boolean;
}

/**
 * Fetch v4. Long-polls like a broker: waits up to max_wait_time for min_bytes to arrive on any
 * requested partition. No transactions, so the last stable offset is the high watermark.
 */
export const fetch = apiHandler(apiKeys.Fetch, 4, async (ctx, { body, signal }) => {
  body.readInt32(); // replica_id
  const maxWaitMs = body.readInt32();
  const minBytes = body.readInt32();
  const maxBytes = body.readInt32();
  body.readInt8(); // isolation_level
  const topics = readTopics(body, (d) => ({
    partition: d.readInt32(),
    fetchOffset: d.readInt64(),
    maxBytes: d.readInt32(),
  }));
  const deadline = Date.now() + maxWaitMs;
  let collected = collect(ctx.store, topics, maxBytes);
  while (collected.bytes < minBytes && !collected.hasError && Date.now() < deadline && !signal.aborted) {
    await appendOrTimeout(ctx.store, topics, deadline - Date.now(), signal);
    collected = collect(ctx.store, topics, maxBytes);
  }
  return writeTopics(
    collected.topics,
    (p) =>
      newEncoder()
        .writeInt32(p.partition)
        .writeInt16(p.errorCode)
        .writeInt64(p.highWatermark)
        .writeInt64(p.highWatermark) // last_stable_offset
        .writeArray([]) // aborted_transactions
        .writeBytes(Buffer.concat(p.batches)),
    newEncoder().writeInt32(0), // throttle_time_ms
  );
});

function collect(store: TopicStore, topics: readonly TopicFetch[], maxBytes: number): Collected {
  let bytes = 0;
  let hasError = false;
  const out = topics.map(({ topic, partitions }) => ({
    topic,
    partitions: partitions.map((p): PartitionData => {
      const log = store.log(topic, p.partition);
      if (log === undefined) {
        hasError = true;
        return { partition: p.partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, highWatermark: -1n, batches: [] };
      }
      const highWatermark = log.highWatermark;
      if (p.fetchOffset < 0n || p.fetchOffset > highWatermark) {
        hasError = true;
        return { partition: p.partition, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark, batches: [] };
      }
      const batches = log.read(p.fetchOffset, Math.min(p.maxBytes, maxBytes - bytes), bytes === 0);
      bytes += batches.reduce((sum, b) => sum + b.length, 0);
      return { partition: p.partition, errorCode: ErrorCode.NONE, highWatermark, batches };
    }),
  }));
  return { topics: out, bytes, hasError };
}

function appendOrTimeout(
  store: TopicStore,
  topics: readonly TopicFetch[],
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    const unsubscribe = store.onAppend((topic, partition) => {
      if (topics.some((t) => t.topic === topic && t.partitions.some((p) => p.partition === partition))) done();
    });
    signal.addEventListener('abort', done);
  });
}
