import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder } from '../kafkajsInternals.ts';
import { apiHandler, readTopics, writeTopics } from './api.ts';
import { readGroupMember } from './groupMembership.ts';

/** OffsetFetch v1: the group's committed offset per partition, -1 when none. */
export const offsetFetch = apiHandler(apiKeys.OffsetFetch, 1, async (ctx, { body }) => {
  const groupId = body.readString() ?? '';
  const topics = readTopics(body, (p) => p.readInt32());
  return writeTopics(topics, (partition, topic) => {
    const committed = ctx.offsets.get(groupId, topic, partition);
    return newEncoder()
      .writeInt32(partition)
      .writeInt64(committed?.offset ?? -1n)
      .writeString(committed?.metadata ?? '')
      .writeInt16(ErrorCode.NONE);
  });
});

/** OffsetCommit v2: stored only when the member and generation are current. */
export const offsetCommit = apiHandler(apiKeys.OffsetCommit, 2, async (ctx, { body }) => {
  const { groupId, generationId, memberId } = readGroupMember(body);
  body.readInt64(); // retention_time_ms
  const topics = readTopics(body, (p) => ({
    partition: p.readInt32(),
    offset: p.readInt64(),
    metadata: p.readString(),
  }));
  const errorCode = ctx.groups.validateCommit(groupId, generationId, memberId);
  return writeTopics(topics, ({ partition, offset, metadata }, topic) => {
    if (errorCode === ErrorCode.NONE) ctx.offsets.set(groupId, topic, partition, { offset, metadata });
    return newEncoder().writeInt32(partition).writeInt16(errorCode);
  });
});
