import type { DecodedRecord } from './kafkajsInternals.ts';
import { ProducerSequences } from './producerSequences.ts';
import { withBaseOffset, type IncomingBatch } from './recordBatches.ts';

/** A record as the broker stored it, decoded for assertions. */
export interface StoredRecord {
  readonly partition: number;
  readonly offset: bigint;
  readonly key: string | null;
  readonly value: string | null;
  /** Header values as UTF-8; when a key repeats, the last value wins. */
  readonly headers: Readonly<Record<string, string>>;
  /** Record timestamp, ms since the epoch. */
  readonly timestamp: number;
}

interface StoredBatch {
  readonly baseOffset: bigint;
  readonly nextOffset: bigint;
  readonly bytes: Buffer;
}

export type AppendOutcome =
  | { readonly ok: true; readonly baseOffset: bigint; readonly duplicate: boolean }
  | { readonly ok: false; readonly errorCode: number };

/**
 * One partition's log. Batches are kept as the producer's raw bytes with the base offset
 * rewritten, so consumers read back exactly what was produced (compression and headers included).
 */
export class PartitionLog {
  private readonly batches: StoredBatch[] = [];
  private readonly decoded: StoredRecord[] = [];
  private readonly sequences = new ProducerSequences();
  private endOffset = 0n;

  constructor(readonly partition: number) {}

  /** The offset the next record will get (single replica: log end offset = high watermark). */
  get highWatermark(): bigint {
    return this.endOffset;
  }

  get records(): readonly StoredRecord[] {
    return this.decoded;
  }

  append(batch: IncomingBatch): AppendOutcome {
    const check = this.sequences.check(batch.identity);
    switch (check.kind) {
      case 'reject':
        return { ok: false, errorCode: check.errorCode };
      case 'duplicate':
        return { ok: true, baseOffset: check.baseOffset, duplicate: true };
      case 'append':
        break;
    }
    const baseOffset = this.endOffset;
    const nextOffset = baseOffset + BigInt(batch.lastOffsetDelta) + 1n;
    this.batches.push({ baseOffset, nextOffset, bytes: withBaseOffset(batch.bytes, baseOffset) });
    for (const { offsetDelta, record } of batch.records) {
      this.decoded.push(toStored(this.partition, baseOffset + BigInt(offsetDelta), record));
    }
    this.endOffset = nextOffset;
    this.sequences.record(batch.identity, baseOffset);
    return { ok: true, baseOffset, duplicate: false };
  }

  /**
   * Whole batches holding offsets from `fetchOffset` on, at most `maxBytes` of them; with
   * `atLeastOne` the first batch is returned even when larger (KIP-74). Consumers skip the
   * records of the first batch that lie before `fetchOffset`.
   */
  read(fetchOffset: bigint, maxBytes: number, atLeastOne: boolean): Buffer[] {
    const start = this.batches.findIndex((b) => b.nextOffset > fetchOffset);
    if (start < 0) return [];
    const out: Buffer[] = [];
    let size = 0;
    for (const batch of this.batches.slice(start)) {
      const mayExceed = atLeastOne && out.length === 0;
      if (!mayExceed && size + batch.bytes.length > maxBytes) break;
      out.push(batch.bytes);
      size += batch.bytes.length;
    }
    return out;
  }

  /** ListOffsets by timestamp: the first offset whose record timestamp is at or after `timestamp`. */
  offsetForTimestamp(timestamp: bigint): StoredRecord | undefined {
    return this.decoded.find((r) => BigInt(r.timestamp) >= timestamp);
  }
}

function toStored(partition: number, offset: bigint, record: DecodedRecord): StoredRecord {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(record.headers)) {
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last != null) headers[key] = last.toString('utf8');
  }
  return {
    partition,
    offset,
    key: record.key === null ? null : record.key.toString('utf8'),
    value: record.value === null ? null : record.value.toString('utf8'),
    headers,
    timestamp: Number(record.timestamp),
  };
}
