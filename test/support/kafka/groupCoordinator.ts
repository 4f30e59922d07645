import { randomUUID } from 'node:crypto';
import { ErrorCode } from './errorCodes.ts';

export interface GroupProtocol {
  readonly name: string;
  readonly metadata: Buffer;
}

export interface JoinRequest {
  readonly groupId: string;
  readonly memberId: string;
  readonly clientId: string;
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly protocolType: string;
  readonly protocols: readonly GroupProtocol[];
}

export interface JoinResult {
  readonly errorCode: number;
  readonly generationId: number;
  readonly protocol: string;
  readonly leaderId: string;
  readonly memberId: string;
  /** Filled for the leader only: it computes the assignment. */
  readonly members: ReadonlyArray<{ readonly memberId: string; readonly metadata: Buffer }>;
}

export interface SyncResult {
  readonly errorCode: number;
  readonly assignment: Buffer;
}

type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable';

interface Member {
  readonly id: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocols: readonly GroupProtocol[];
  assignment: Buffer;
  pendingJoin: ((result: JoinResult) => void) | null;
  pendingSync: ((result: SyncResult) => void) | null;
  sessionTimer: NodeJS.Timeout | null;
}

interface Group {
  readonly id: string;
  state: GroupState;
  generationId: number;
  protocolType: string;
  protocol: string;
  leaderId: string | null;
  readonly members: Map<string, Member>;
  rebalanceTimer: NodeJS.Timeout | null;
}

const EMPTY = Buffer.alloc(0);

/**
 * The broker side of the classic consumer-group protocol: a join barrier (every known member must
 * rejoin before a generation completes, or is dropped after the rebalance timeout), the leader's
 * assignment handed out at SyncGroup, session timeouts. Assignment itself is computed by the
 * client leader, as in real Kafka.
 */
export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();

  join(req: JoinRequest): Promise<JoinResult> {
    const group = this.group(req.groupId);
    const failed = (errorCode: number): Promise<JoinResult> =>
      Promise.resolve({ errorCode, generationId: -1, protocol: '', leaderId: '', memberId: req.memberId, members: [] });
    const existing = req.memberId === '' ? undefined : group.members.get(req.memberId);
    if (req.memberId !== '' && existing === undefined) return failed(ErrorCode.UNKNOWN_MEMBER_ID);
    const othersCompatible = [...group.members.values()].every(
      (m) => m === existing || m.protocols.some((p) => req.protocols.some((q) => q.name === p.name)),
    );
    if (group.members.size > 0 && (group.protocolType !== req.protocolType || !othersCompatible)) {
      return failed(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    group.protocolType = req.protocolType;
    const member: Member = existing ?? {
      id: `${req.clientId}-${randomUUID()}`,
      sessionTimeoutMs: 0,
      rebalanceTimeoutMs: 0,
      protocols: [],
      assignment: EMPTY,
      pendingJoin: null,
      pendingSync: null,
      sessionTimer: null,
    };
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    member.protocols = req.protocols;
    stopSessionTimer(member);
    group.members.set(member.id, member);
    return new Promise((resolve) => {
      member.pendingJoin?.({ ...noResult(member.id), errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
      member.pendingJoin = resolve;
      if (group.state !== 'PreparingRebalance') this.prepareRebalance(group);
      this.maybeCompleteJoin(group);
    });
  }

  sync(
    groupId: string,
    generationId: number,
    memberId: string,
    assignments: ReadonlyArray<{ readonly memberId: string; readonly assignment: Buffer }>,
  ): Promise<SyncResult> {
    const group = this.groups.get(groupId);
    const member = group?.members.get(memberId);
    if (group === undefined || member === undefined) return syncError(ErrorCode.UNKNOWN_MEMBER_ID);
    if (generationId !== group.generationId) return syncError(ErrorCode.ILLEGAL_GENERATION);
    if (group.state === 'PreparingRebalance') return syncError(ErrorCode.REBALANCE_IN_PROGRESS);
    this.startSessionTimer(group, member);
    if (group.state === 'Stable') return Promise.resolve({ errorCode: ErrorCode.NONE, assignment: member.assignment });
    if (memberId === group.leaderId) {
      for (const m of group.members.values()) {
        m.assignment = assignments.find((a) => a.memberId === m.id)?.assignment ?? EMPTY;
      }
      group.state = 'Stable';
      for (const m of group.members.values()) {
        m.pendingSync?.({ errorCode: ErrorCode.NONE, assignment: m.assignment });
        m.pendingSync = null;
      }
      return Promise.resolve({ errorCode: ErrorCode.NONE, assignment: member.assignment });
    }
    return new Promise((resolve) => {
      member.pendingSync = resolve;
    });
  }

  heartbeat(groupId: string, generationId: number, memberId: string): number {
    const group = this.groups.get(groupId);
    const member = group?.members.get(memberId);
    if (group === undefined || member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    this.startSessionTimer(group, member);
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    return group.state === 'Stable' ? ErrorCode.NONE : ErrorCode.REBALANCE_IN_PROGRESS;
  }

  leave(groupId: string, memberId: string): number {
    const group = this.groups.get(groupId);
    if (group === undefined || !group.members.has(memberId)) return ErrorCode.UNKNOWN_MEMBER_ID;
    this.removeMember(group, memberId);
    return ErrorCode.NONE;
  }

  /** Whether an OffsetCommit from this member/generation may be accepted. */
  validateCommit(groupId: string, generationId: number, memberId: string): number {
    if (generationId < 0 && memberId === '') return ErrorCode.NONE; // a commit from outside any group
    const group = this.groups.get(groupId);
    if (group === undefined || !group.members.has(memberId)) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    if (group.state === 'PreparingRebalance') return ErrorCode.REBALANCE_IN_PROGRESS;
    return ErrorCode.NONE;
  }

  close(): void {
    for (const group of this.groups.values()) {
      if (group.rebalanceTimer !== null) clearTimeout(group.rebalanceTimer);
      for (const member of group.members.values()) stopSessionTimer(member);
    }
  }

  private group(groupId: string): Group {
    let group = this.groups.get(groupId);
    if (group === undefined) {
      group = {
        id: groupId,
        state: 'Empty',
        generationId: 0,
        protocolType: '',
        protocol: '',
        leaderId: null,
        members: new Map(),
        rebalanceTimer: null,
      };
      this.groups.set(groupId, group);
    }
    return group;
  }

  private prepareRebalance(group: Group): void {
    for (const m of group.members.values()) {
      m.pendingSync?.({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, assignment: EMPTY });
      m.pendingSync = null;
    }
    group.state = 'PreparingRebalance';
    const timeoutMs = Math.max(0, ...[...group.members.values()].map((m) => m.rebalanceTimeoutMs));
    group.rebalanceTimer = setTimeout(() => {
      group.rebalanceTimer = null;
      for (const m of [...group.members.values()]) {
        if (m.pendingJoin !== null) continue;
        stopSessionTimer(m);
        group.members.delete(m.id);
      }
      this.completeJoin(group);
    }, timeoutMs);
    group.rebalanceTimer.unref();
  }

  private maybeCompleteJoin(group: Group): void {
    if (group.state !== 'PreparingRebalance') return;
    if ([...group.members.values()].every((m) => m.pendingJoin !== null)) this.completeJoin(group);
  }

  private completeJoin(group: Group): void {
    if (group.rebalanceTimer !== null) clearTimeout(group.rebalanceTimer);
    group.rebalanceTimer = null;
    group.generationId += 1;
    const members = [...group.members.values()];
    const first = members[0];
    if (first === undefined) {
      group.state = 'Empty';
      group.leaderId = null;
      return;
    }
    const leaderId = group.leaderId !== null && group.members.has(group.leaderId) ? group.leaderId : first.id;
    const protocol = first.protocols.find((p) => members.every((m) => m.protocols.some((q) => q.name === p.name)));
    group.leaderId = leaderId;
    group.protocol = protocol?.name ?? '';
    group.state = 'CompletingRebalance';
    for (const m of members) {
      const resolve = m.pendingJoin;
      m.pendingJoin = null;
      this.startSessionTimer(group, m);
      resolve?.({
        errorCode: ErrorCode.NONE,
        generationId: group.generationId,
        protocol: group.protocol,
        leaderId,
        memberId: m.id,
        members:
          m.id === leaderId
            ? members.map((x) => ({
                memberId: x.id,
                metadata: x.protocols.find((p) => p.name === group.protocol)?.metadata ?? EMPTY,
              }))
            : [],
      });
    }
  }

  private removeMember(group: Group, memberId: string): void {
    const member = group.members.get(memberId);
    if (member === undefined) return;
    stopSessionTimer(member);
    member.pendingJoin?.({ ...noResult(memberId), errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
    member.pendingSync?.({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, assignment: EMPTY });
    group.members.delete(memberId);
    if (group.members.size === 0) {
      if (group.rebalanceTimer !== null) clearTimeout(group.rebalanceTimer);
      group.rebalanceTimer = null;
      group.state = 'Empty';
      group.leaderId = null;
      return;
    }
    if (group.state !== 'PreparingRebalance') this.prepareRebalance(group);
    this.maybeCompleteJoin(group);
  }

  private startSessionTimer(group: Group, member: Member): void {
    stopSessionTimer(member);
    member.sessionTimer = setTimeout(() => this.removeMember(group, member.id), member.sessionTimeoutMs);
    member.sessionTimer.unref();
  }
}

function stopSessionTimer(member: Member): void {
  if (member.sessionTimer !== null) clearTimeout(member.sessionTimer);
  member.sessionTimer = null;
}

function noResult(memberId: string): JoinResult {
  return { errorCode: ErrorCode.NONE, generationId: -1, protocol: '', leaderId: '', memberId, members: [] };
}

function syncError(errorCode: number): Promise<SyncResult> {
  return Promise.resolve({ errorCode, assignment: EMPTY });
}
