import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder } from '../kafkajsInternals.ts';
import type { PartitionLog } from '../partitionLog.ts';
import { apiHandler, readTopics, writeTopics } from './api.ts';

const LATEST = -1n;
const EARLIEST = -2n;

/** ListOffsets v1: earliest (-2), latest (-1) or the first offset at/after a timestamp. */
export const listOffsets = apiHandler(apiKeys.ListOffsets, 1, async (ctx, { body }) => {
  body.readInt32(); // replica_id
  const topics = readTopics(body, (p) => ({ partition: p.readInt32(), timestamp: p.readInt64() }));
  return writeTopics(topics, ({ partition, timestamp }, topic) => {
    const log = ctx.store.log(topic, partition);
    const entry = newEncoder().writeInt32(partition);
    if (log === undefined) {
      return entry.writeInt16(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION).writeInt64(-1n).writeInt64(-1n);
    }
    const { offset, timestamp: found } = offsetFor(log, timestamp);
    return entry.writeInt16(ErrorCode.NONE).writeInt64(found).writeInt64(offset);
  });
});

/** The offset for a ListOffsets target and the timestamp to report with it (-1 for earliest/latest). */
function offsetFor(log: PartitionLog, timestamp: bigint): { offset: bigint; timestamp: bigint } {
  if (timestamp === EARLIEST) return { offset: 0n, timestamp: -1n };
  if (timestamp === LATEST) return { offset: log.highWatermark, timestamp: -1n };
  const found = log.offsetForTimestamp(timestamp);
  return found === undefined
    ? { offset: -1n, timestamp: -1n }
    : { offset: found.offset, timestamp: BigInt(found.timestamp) };
}
