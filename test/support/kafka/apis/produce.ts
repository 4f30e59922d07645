import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder, type KafkaDecoder } from '../kafkajsInternals.ts';
import type { PartitionLog } from '../partitionLog.ts';
import { BatchFormatError, parseRecordSet, type IncomingBatch } from '../recordBatches.ts';
import { apiHandler, readTopics, writeTopics, type BrokerContext } from './api.ts';

interface PartitionRequest {
  readonly partition: number;
  readonly recordSet: Buffer;
}

interface PartitionResult {
  readonly partition: number;
  readonly errorCode: number;
  readonly baseOffset: bigint;
}

/**
 * Produce v3 (record batches, idempotent producers). Each partition's record set must hold one
 * batch; retried batches are deduplicated by the partition's producer state. Armed
 * `failNextProduce` faults answer every partition of the request with their error code.
 */
export const produce = apiHandler(apiKeys.Produce, 3, async (ctx, { body }) => {
  body.readString(); // transactional_id
  const acks = body.readInt16();
  body.readInt32(); // timeout_ms
  const topics = readTopics(body, readPartition);
  // Decode every batch before touching any log, so the appends below happen in one turn.
  const parsed = await Promise.all(
    topics.map(async ({ topic, partitions }) => ({
      topic,
      partitions: await Promise.all(partitions.map((p) => parsePartition(ctx, topic, p))),
    })),
  );
  const failure = ctx.faults.takeProduceFailure();
  const results = parsed.map(({ topic, partitions }) => ({
    topic,
    partitions: partitions.map((p): PartitionResult => {
      if (p.kind === 'error') return { partition: p.partition, errorCode: p.errorCode, baseOffset: -1n };
      if (failure !== null && !failure.afterAppend) {
        return { partition: p.partition, errorCode: failure.errorCode, baseOffset: -1n };
      }
      const outcome = p.log.append(p.batch);
      if (outcome.ok && !outcome.duplicate) ctx.store.notifyAppend(topic, p.partition);
      if (failure !== null) return { partition: p.partition, errorCode: failure.errorCode, baseOffset: -1n };
      return outcome.ok
        ? { partition: p.partition, errorCode: ErrorCode.NONE, baseOffset: outcome.baseOffset }
        : { partition: p.partition, errorCode: outcome.errorCode, baseOffset: -1n };
    }),
  }));
  if (acks === 0) return null;
  return writeTopics(results, (p) =>
    newEncoder().writeInt32(p.partition).writeInt16(p.errorCode).writeInt64(p.baseOffset).writeInt64(-1n),
  ).writeInt32(0);
});

function readPartition(decoder: KafkaDecoder): PartitionRequest {
  const partition = decoder.readInt32();
  return { partition, recordSet: decoder.readBytes() ?? Buffer.alloc(0) };
}

type ParsedPartition =
  | { readonly kind: 'batch'; readonly partition: number; readonly log: PartitionLog; readonly batch: IncomingBatch }
  | { readonly kind: 'error'; readonly partition: number; readonly errorCode: number };

async function parsePartition(ctx: BrokerContext, topic: string, req: PartitionRequest): Promise<ParsedPartition> {
  const log = ctx.store.log(topic, req.partition);
  if (log === undefined) {
    return { kind: 'error', partition: req.partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  }
  let batches: IncomingBatch[];
  try {
    batches = await parseRecordSet(req.recordSet);
  } catch (error) {
    if (error instanceof BatchFormatError) {
      return { kind: 'error', partition: req.partition, errorCode: ErrorCode.CORRUPT_MESSAGE };
    }
    throw error;
  }
  const [batch, ...rest] = batches;
  // Since Produce v3 a partition's record set must be exactly one batch.
  if (batch === undefined || rest.length > 0) {
    return { kind: 'error', partition: req.partition, errorCode: ErrorCode.CORRUPT_MESSAGE };
  }
  return { kind: 'batch', partition: req.partition, log, batch };
}
