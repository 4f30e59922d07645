import { decodeRecordBatch, type DecodedRecord, type DecodedRecordBatch } from './kafkajsInternals.ts';
import { incrementSequence, type BatchIdentity } from './producerSequences.ts';

/** A record batch (message format v2) as received in a Produce request, not yet given offsets. */
export interface IncomingBatch {
  readonly bytes: Buffer;
  readonly identity: BatchIdentity;
  readonly lastOffsetDelta: number;
  readonly maxTimestamp: bigint;
  /** Decoded records; `offsetDelta` is relative to the batch's base offset. */
  readonly records: ReadonlyArray<{ readonly offsetDelta: number; readonly record: DecodedRecord }>;
}

export class BatchFormatError extends Error {
  override readonly name = 'BatchFormatError';
}

// Byte positions in the v2 record batch header.
const LENGTH_AT = 8;
const HEADER_BEFORE_LENGTH = 12;
const MAGIC_AT = 16;
const LAST_OFFSET_DELTA_AT = 23;
const MAX_TIMESTAMP_AT = 35;
const PRODUCER_ID_AT = 43;
const PRODUCER_EPOCH_AT = 51;
const BASE_SEQUENCE_AT = 53;
const RECORD_BATCH_MAGIC = 2;
const MIN_BATCH_SIZE = 61;

/** Splits a Produce record set into its record batches and decodes them with kafkajs. */
export async function parseRecordSet(recordSet: Buffer): Promise<IncomingBatch[]> {
  const batches: IncomingBatch[] = [];
  let at = 0;
  while (at < recordSet.length) {
    if (recordSet.length - at < MIN_BATCH_SIZE) throw new BatchFormatError('truncated record batch');
    const size = HEADER_BEFORE_LENGTH + recordSet.readInt32BE(at + LENGTH_AT);
    if (at + size > recordSet.length) throw new BatchFormatError('truncated record batch');
    batches.push(await parseBatch(recordSet.subarray(at, at + size)));
    at += size;
  }
  return batches;
}

async function parseBatch(bytes: Buffer): Promise<IncomingBatch> {
  const magic = bytes.readInt8(MAGIC_AT);
  if (magic !== RECORD_BATCH_MAGIC) throw new BatchFormatError(`unsupported magic byte ${magic}`);
  let decoded: DecodedRecordBatch;
  try {
    decoded = await decodeRecordBatch(bytes);
  } catch (cause) {
    throw new BatchFormatError('undecodable record batch', { cause });
  }
  const firstOffset = BigInt(decoded.firstOffset);
  const firstSequence = bytes.readInt32BE(BASE_SEQUENCE_AT);
  const lastOffsetDelta = bytes.readInt32BE(LAST_OFFSET_DELTA_AT);
  return {
    bytes,
    lastOffsetDelta,
    maxTimestamp: bytes.readBigInt64BE(MAX_TIMESTAMP_AT),
    identity: {
      producerId: bytes.readBigInt64BE(PRODUCER_ID_AT),
      producerEpoch: bytes.readInt16BE(PRODUCER_EPOCH_AT),
      firstSequence,
      lastSequence: incrementSequence(firstSequence, lastOffsetDelta),
    },
    records: decoded.records.map((record) => ({
      offsetDelta: Number(BigInt(record.offset) - firstOffset),
      record,
    })),
  };
}

/** A copy of the batch with its base offset set; the CRC does not cover the base offset. */
export function withBaseOffset(batch: Buffer, baseOffset: bigint): Buffer {
  const copy = Buffer.from(batch);
  copy.writeBigInt64BE(baseOffset, 0);
  return copy;
}
