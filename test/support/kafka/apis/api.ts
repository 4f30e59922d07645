import type { CommittedOffsets } from '../committedOffsets.ts';
import type { FaultState } from '../faults.ts';
import type { GroupCoordinator } from '../groupCoordinator.ts';
import type { KafkaDecoder, KafkaEncoder } from '../kafkajsInternals.ts';
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
