import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder } from '../kafkajsInternals.ts';
import { apiHandler } from './api.ts';

/**
 * CreateTopics v0 (kafkajs admin.createTopics). The partition count comes from num_partitions or
 * the replica assignment; -1 means the broker default. Configs and replication are ignored.
 */
export const createTopics = apiHandler(apiKeys.CreateTopics, 0, async (ctx, { body }) => {
  const topics = body.readArray((d) => ({
    topic: d.readString() ?? '',
    numPartitions: d.readInt32(),
    replicationFactor: d.readInt16(),
    assignedPartitions: d.readArray((a) => ({ partition: a.readInt32(), replicas: a.readArray((r) => r.readInt32()) })).length,
    configs: d.readArray((c) => ({ name: c.readString(), value: c.readString() })),
  }));
  body.readInt32(); // timeout_ms
  return newEncoder().writeArray(
    topics.map(({ topic, numPartitions, assignedPartitions }) => {
      const partitions = assignedPartitions > 0 ? assignedPartitions : numPartitions;
      const errorCode =
        partitions === 0 || partitions < -1
          ? ErrorCode.INVALID_PARTITIONS
          : ctx.store.createIfAbsent(topic, partitions === -1 ? undefined : partitions)
            ? ErrorCode.NONE
            : ErrorCode.TOPIC_ALREADY_EXISTS;
      return newEncoder().writeString(topic).writeInt16(errorCode);
    }),
  );
});
