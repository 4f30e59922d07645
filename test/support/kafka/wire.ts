import type { KafkaDecoder } from './kafkajsInternals.ts';

/** Request header v1 (kafkajs sends no flexible versions, so there are no tagged fields). */
export interface RequestHeader {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
}

const SIZE_PREFIX = 4;
/** Larger frames are treated as a corrupt stream rather than buffered. */
const MAX_FRAME = 100 * 1024 * 1024;

export class FrameError extends Error {
  override readonly name = 'FrameError';
}

/** Cuts a TCP byte stream into size-prefixed Kafka request frames. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Buffer[] = [];
    while (this.pending.length >= SIZE_PREFIX) {
      const size = this.pending.readInt32BE(0);
      if (size < 0 || size > MAX_FRAME) throw new FrameError(`bad frame size ${size}`);
      if (this.pending.length < SIZE_PREFIX + size) break;
      frames.push(this.pending.subarray(SIZE_PREFIX, SIZE_PREFIX + size));
      this.pending = this.pending.subarray(SIZE_PREFIX + size);
    }
    return frames;
  }
}

export function readRequestHeader(decoder: KafkaDecoder): RequestHeader {
  return {
    apiKey: decoder.readInt16(),
    apiVersion: decoder.readInt16(),
    correlationId: decoder.readInt32(),
    clientId: decoder.readString(),
  };
}

/** Response header v0 (correlation id only) followed by the body, size-prefixed. */
export function responseFrame(correlationId: number, body: Buffer): Buffer {
  const head = Buffer.alloc(SIZE_PREFIX + 4);
  head.writeInt32BE(4 + body.length, 0);
  head.writeInt32BE(correlationId, SIZE_PREFIX);
  return Buffer.concat([head, body]);
}
