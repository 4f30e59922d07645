// Typed access to the kafkajs 2.2.4 protocol internals the test broker is built from.
// kafkajs is CommonJS and ships no types for src/**, so the shapes used here are declared by hand.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface KafkaEncoder {
  readonly buffer: Buffer;
  writeInt8(value: number): KafkaEncoder;
  writeInt16(value: number): KafkaEncoder;
  writeInt32(value: number): KafkaEncoder;
  writeInt64(value: bigint): KafkaEncoder;
  writeBoolean(value: boolean): KafkaEncoder;
  writeString(value: string | null): KafkaEncoder;
  writeBytes(value: Buffer | null): KafkaEncoder;
  writeBuffer(value: Buffer): KafkaEncoder;
  /** Arrays of int32 (`numbers`), strings, or nested encoders. */
  writeArray(items: readonly KafkaEncoder[] | readonly number[] | readonly string[]): KafkaEncoder;
}

export interface KafkaDecoder {
  readonly offset: number;
  readInt8(): number;
  readInt16(): number;
  readInt32(): number;
  readInt64(): bigint;
  readBoolean(): boolean;
  readString(): string | null;
  readBytes(): Buffer | null;
  canReadBytes(length: number): boolean;
  readArray<T>(reader: (decoder: KafkaDecoder) => T): T[];
}

export interface DecodedRecord {
  readonly offset: string;
  readonly timestamp: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, Buffer | Buffer[]>>;
}

export interface DecodedRecordBatch {
  readonly firstOffset: string;
  readonly lastOffsetDelta: number;
  readonly maxTimestamp: string;
  readonly producerId: string;
  readonly producerEpoch: number;
  readonly firstSequence: number;
  readonly inTransaction: boolean;
  readonly isControlBatch: boolean;
  readonly records: readonly DecodedRecord[];
}

interface KafkaErrorCode {
  readonly type: string;
  readonly code: number;
  readonly retriable: boolean;
}

const EncoderClass = require('kafkajs/src/protocol/encoder') as new () => KafkaEncoder;
const DecoderClass = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => KafkaDecoder;
const recordBatchDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (
  decoder: KafkaDecoder,
) => Promise<DecodedRecordBatch>;
const protocolErrors = require('kafkajs/src/protocol/error') as { errorCodes: KafkaErrorCode[] };

type ApiName =
  | 'Produce'
  | 'Fetch'
  | 'ListOffsets'
  | 'Metadata'
  | 'OffsetCommit'
  | 'OffsetFetch'
  | 'GroupCoordinator'
  | 'JoinGroup'
  | 'Heartbeat'
  | 'LeaveGroup'
  | 'SyncGroup'
  | 'ApiVersions'
  | 'InitProducerId'
  | 'CreateTopics';

export const apiKeys = require('kafkajs/src/protocol/requests/apiKeys') as Readonly<Record<ApiName, number>>;

export const newEncoder = (): KafkaEncoder => new EncoderClass();
export const newDecoder = (buffer: Buffer): KafkaDecoder => new DecoderClass(buffer);

/** Decodes one stored record batch (decompressing it if needed) with kafkajs's own decoder. */
export const decodeRecordBatch = (batch: Buffer): Promise<DecodedRecordBatch> =>
  recordBatchDecoder(newDecoder(batch));

/** Kafka protocol error code for a kafkajs error type name such as `NOT_LEADER_FOR_PARTITION`. */
export function kafkaErrorCode(type: string): number {
  const found = protocolErrors.errorCodes.find((e) => e.type === type);
  if (found === undefined) throw new Error(`unknown Kafka error type ${type}`);
  return found.code;
}
