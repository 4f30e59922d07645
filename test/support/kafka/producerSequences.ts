import { ErrorCode } from './errorCodes.ts';

/** What an idempotent producer stamped on a record batch. */
export interface BatchIdentity {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly firstSequence: number;
  readonly lastSequence: number;
}

export type SequenceCheck =
  | { readonly kind: 'append' }
  | { readonly kind: 'duplicate'; readonly baseOffset: bigint }
  | { readonly kind: 'reject'; readonly errorCode: number };

interface ProducerEntry {
  epoch: number;
  lastSequence: number;
  recent: Array<{ firstSequence: number; lastSequence: number; baseOffset: bigint }>;
}

/** A real broker remembers the last five batches of each producer per partition. */
const RETAINED_BATCHES = 5;
const INT32_MAX = 2 ** 31 - 1;

/** Sequence arithmetic as in Kafka's DefaultRecordBatch.incrementSequence (wraps to 0). */
export function incrementSequence(sequence: number, increment: number): number {
  return sequence > INT32_MAX - increment ? increment - (INT32_MAX - sequence) - 1 : sequence + increment;
}

/**
 * Idempotent-producer bookkeeping for one partition, like the broker's producer state:
 * a retried batch (same producer, epoch and sequence range) is answered with its original
 * offset instead of being appended twice; a gap in sequences is rejected.
 */
export class ProducerSequences {
  private readonly producers = new Map<bigint, ProducerEntry>();

  check(batch: BatchIdentity): SequenceCheck {
    if (batch.producerId < 0n) return { kind: 'append' };
    const entry = this.producers.get(batch.producerId);
    if (entry === undefined) {
      return batch.firstSequence === 0
        ? { kind: 'append' }
        : { kind: 'reject', errorCode: ErrorCode.UNKNOWN_PRODUCER_ID };
    }
    if (batch.producerEpoch < entry.epoch) {
      return { kind: 'reject', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH };
    }
    if (batch.producerEpoch > entry.epoch) {
      return batch.firstSequence === 0
        ? { kind: 'append' }
        : { kind: 'reject', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER };
    }
    const duplicate = entry.recent.find(
      (b) => b.firstSequence === batch.firstSequence && b.lastSequence === batch.lastSequence,
    );
    if (duplicate !== undefined) return { kind: 'duplicate', baseOffset: duplicate.baseOffset };
    if (batch.firstSequence !== incrementSequence(entry.lastSequence, 1)) {
      return { kind: 'reject', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER };
    }
    return { kind: 'append' };
  }

  /** Call after a batch that `check` accepted has been appended at `baseOffset`. */
  record(batch: BatchIdentity, baseOffset: bigint): void {
    if (batch.producerId < 0n) return;
    const previous = this.producers.get(batch.producerId);
    const entry: ProducerEntry =
      previous !== undefined && previous.epoch === batch.producerEpoch
        ? previous
        : { epoch: batch.producerEpoch, lastSequence: -1, recent: [] };
    entry.recent.push({
      firstSequence: batch.firstSequence,
      lastSequence: batch.lastSequence,
      baseOffset,
    });
    if (entry.recent.length > RETAINED_BATCHES) entry.recent.shift();
    entry.lastSequence = batch.lastSequence;
    this.producers.set(batch.producerId, entry);
  }
}
