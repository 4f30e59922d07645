import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder, type KafkaDecoder } from '../kafkajsInternals.ts';
import { apiHandler, NODE_ID } from './api.ts';

/** The group_id, generation_id, member_id that open SyncGroup, Heartbeat and OffsetCommit. */
export function readGroupMember(body: KafkaDecoder): { groupId: string; generationId: number; memberId: string } {
  const groupId = body.readString() ?? '';
  const generationId = body.readInt32();
  return { groupId, generationId, memberId: body.readString() ?? '' };
}

/** FindCoordinator v0: this broker coordinates every group. */
export const findCoordinator = apiHandler(apiKeys.GroupCoordinator, 0, async (ctx, { body }) => {
  body.readString(); // group_id
  return newEncoder().writeInt16(ErrorCode.NONE).writeInt32(NODE_ID).writeString(ctx.host).writeInt32(ctx.port);
});

/** JoinGroup v1; the response waits for the group's join barrier. */
export const joinGroup = apiHandler(apiKeys.JoinGroup, 1, async (ctx, { body, clientId }) => {
  const groupId = body.readString() ?? '';
  const sessionTimeoutMs = body.readInt32();
  const rebalanceTimeoutMs = body.readInt32();
  const memberId = body.readString() ?? '';
  const protocolType = body.readString() ?? '';
  const protocols = body.readArray((d) => ({
    name: d.readString() ?? '',
    metadata: d.readBytes() ?? Buffer.alloc(0),
  }));
  const result = await ctx.groups.join({
    groupId,
    memberId,
    clientId,
    sessionTimeoutMs,
    rebalanceTimeoutMs,
    protocolType,
    protocols,
  });
  return newEncoder()
    .writeInt16(result.errorCode)
    .writeInt32(result.generationId)
    .writeString(result.protocol)
    .writeString(result.leaderId)
    .writeString(result.memberId)
    .writeArray(result.members.map((m) => newEncoder().writeString(m.memberId).writeBytes(m.metadata)));
});

/** SyncGroup v0: the leader hands in the assignment; followers wait for it. */
export const syncGroup = apiHandler(apiKeys.SyncGroup, 0, async (ctx, { body }) => {
  const { groupId, generationId, memberId } = readGroupMember(body);
  const assignments = body.readArray((d) => ({
    memberId: d.readString() ?? '',
    assignment: d.readBytes() ?? Buffer.alloc(0),
  }));
  const result = await ctx.groups.sync(groupId, generationId, memberId, assignments);
  return newEncoder().writeInt16(result.errorCode).writeBytes(result.assignment);
});

/** Heartbeat v0. */
export const heartbeat = apiHandler(apiKeys.Heartbeat, 0, async (ctx, { body }) => {
  const { groupId, generationId, memberId } = readGroupMember(body);
  return newEncoder().writeInt16(ctx.groups.heartbeat(groupId, generationId, memberId));
});

/** LeaveGroup v0. */
export const leaveGroup = apiHandler(apiKeys.LeaveGroup, 0, async (ctx, { body }) => {
  const groupId = body.readString() ?? '';
  const memberId = body.readString() ?? '';
  return newEncoder().writeInt16(ctx.groups.leave(groupId, memberId));
});
