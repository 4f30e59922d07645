import { PartitionLog, type StoredRecord } from './partitionLog.ts';

export interface TopicStoreOptions {
  /** Partitions of an auto-created topic. */
  readonly defaultPartitions: number;
  /** Topics created up front, name → partition count. */
  readonly topics: Readonly<Record<string, number>>;
}

type AppendListener = (topic: string, partition: number) => void;

/** All topics of the broker; outlives stop()/restart() the way a broker's log directory does. */
export class TopicStore {
  private readonly topics = new Map<string, PartitionLog[]>();
  private readonly listeners = new Set<AppendListener>();

  constructor(private readonly options: TopicStoreOptions) {
    for (const [name, partitions] of Object.entries(options.topics)) this.create(name, partitions);
  }

  names(): string[] {
    return [...this.topics.keys()];
  }

  partitions(topic: string): readonly PartitionLog[] | undefined {
    return this.topics.get(topic);
  }

  /** Metadata auto-creates topics, like `auto.create.topics.enable=true`. */
  ensure(topic: string): readonly PartitionLog[] {
    return this.topics.get(topic) ?? this.create(topic, this.options.defaultPartitions);
  }

  /** CreateTopics: false when the topic already exists. */
  createIfAbsent(topic: string, partitions: number = this.options.defaultPartitions): boolean {
    if (this.topics.has(topic)) return false;
    this.create(topic, partitions);
    return true;
  }

  log(topic: string, partition: number): PartitionLog | undefined {
    return this.topics.get(topic)?.[partition];
  }

  /** Records of every partition, ordered by partition then offset. */
  records(topic: string): StoredRecord[] {
    return (this.topics.get(topic) ?? []).flatMap((log) => log.records);
  }

  notifyAppend(topic: string, partition: number): void {
    for (const listener of [...this.listeners]) listener(topic, partition);
  }

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private create(topic: string, partitions: number): PartitionLog[] {
    if (!Number.isInteger(partitions) || partitions < 1) {
      throw new RangeError(`topic ${topic}: partition count must be a positive integer`);
    }
    const logs = Array.from({ length: partitions }, (_, i) => new PartitionLog(i));
    this.topics.set(topic, logs);
    return logs;
  }
}
