import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder } from '../kafkajsInternals.ts';
import type { ApiHandler } from './api.ts';
import { readGroupMember } from './groupMembership.ts';

/** OffsetFetch v1: the group's committed offset per partition, -1 when none. */
export const offsetFetch: ApiHandler = {
  apiKey: apiKeys.OffsetFetch,
  minVersion: 1,
  maxVersion: 1,
  async handle(ctx, { body }) {
    const groupId = body.readString() ?? '';
    const topics = body.readArray((d) => ({
      topic: d.readString() ?? '',
      partitions: d.readArray((p) => p.readInt32()),
    }));
    return newEncoder().writeArray(
      topics.map(({ topic, partitions }) =>
        newEncoder()
          .writeString(topic)
          .writeArray(
            partitions.map((partition) => {
              const committed = ctx.offsets.get(groupId, topic, partition);
              return newEncoder()
                .writeInt32(partition)
                .writeInt64(committed?.offset ?? -1n)
                .writeString(committed?.metadata ?? '')
                .writeInt16(ErrorCode.NONE);
            }),
          ),
      ),
    );
  },
};

/** OffsetCommit v2: stored only when the member and generation are current. */
export const offsetCommit: ApiHandler = {
  apiKey: apiKeys.OffsetCommit,
  minVersion: 2,
  maxVersion: 2,
  async handle(ctx, { body }) {
    const { groupId, generationId, memberId } = readGroupMember(body);
    body.readInt64(); // retention_time_ms
    const topics = body.readArray((d) => ({
      topic: d.readString() ?? '',
      partitions: d.readArray((p) => ({
        partition: p.readInt32(),
        offset: p.readInt64(),
        metadata: p.readString(),
      })),
    }));
    const errorCode = ctx.groups.validateCommit(groupId, generationId, memberId);
    return newEncoder().writeArray(
      topics.map(({ topic, partitions }) =>
        newEncoder()
          .writeString(topic)
          .writeArray(
            partitions.map(({ partition, offset, metadata }) => {
              if (errorCode === ErrorCode.NONE) ctx.offsets.set(groupId, topic, partition, { offset, metadata });
              return newEncoder().writeInt32(partition).writeInt16(errorCode);
            }),
          ),
      ),
    );
  },
};
