import type { CommittedOffsets } from '../committedOffsets.ts';
import type { FaultState } from '../faults.ts';
import type { GroupCoordinator } from '../groupCoordinator.ts';
import { newEncoder, type KafkaDecoder, type KafkaEncoder } from '../kafkajsInternals.ts';
import type { TopicStore } from '../topicStore.ts';

export interface SupportedApi {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

/** What the request handlers share: one broker, node id 0, leader of every partition. */
export interface BrokerContext {
  readonly host: string;
  readonly port: number;
  readonly store: TopicStore;
  readonly groups: GroupCoordinator;
  readonly offsets: CommittedOffsets;
  readonly faults: FaultState;
  readonly supportedApis: readonly SupportedApi[];
  allocateProducerId(): bigint;
}

export interface ApiRequest {
  readonly version: number;
  readonly clientId: string;
  readonly body: KafkaDecoder;
  /** Aborted when the connection closes or the broker stops (ends long polls). */
  readonly signal: AbortSignal;
}

export interface ApiHandler extends SupportedApi {
  /** The response body, or null when the client expects none (Produce with acks=0). */
  handle(ctx: BrokerContext, request: ApiRequest): Promise<KafkaEncoder | null>;
}

export const NODE_ID = 0;

/** A handler of one API, at one version or a range of them. */
export function apiHandler(
  apiKey: number,
  versions: number | readonly [min: number, max: number],
  handle: ApiHandler['handle'],
): ApiHandler {
  const [minVersion, maxVersion] = typeof versions === 'number' ? [versions, versions] : versions;
  return { apiKey, minVersion, maxVersion, handle };
}

export interface TopicEntries<P> {
  readonly topic: string;
  readonly partitions: readonly P[];
}

/** A request's topic array: each topic's name, then its partitions as `readPartition` reads them. */
export function readTopics<P>(body: KafkaDecoder, readPartition: (decoder: KafkaDecoder) => P): TopicEntries<P>[] {
  return body.readArray((d) => ({ topic: d.readString() ?? '', partitions: d.readArray(readPartition) }));
}

/** A response's topic array (after what `into` holds): each topic's name, then one entry per partition. */
export function writeTopics<P>(
  topics: readonly TopicEntries<P>[],
  writePartition: (partition: P, topic: string) => KafkaEncoder,
  into: KafkaEncoder = newEncoder(),
): KafkaEncoder {
  return into.writeArray(
    topics.map(({ topic, partitions }) =>
      newEncoder()
        .writeString(topic)
        .writeArray(partitions.map((p) => writePartition(p, topic))),
    ),
  );
}
