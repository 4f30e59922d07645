export interface CommittedOffset {
  readonly offset: bigint;
  readonly metadata: string | null;
}

/** Offsets committed by consumer groups (the broker's __consumer_offsets). */
export class CommittedOffsets {
  private readonly byKey = new Map<string, CommittedOffset>();

  get(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.byKey.get(key(groupId, topic, partition));
  }

  set(groupId: string, topic: string, partition: number, committed: CommittedOffset): void {
    this.byKey.set(key(groupId, topic, partition), committed);
  }
}

const key = (groupId: string, topic: string, partition: number): string =>
  JSON.stringify([groupId, topic, partition]);
