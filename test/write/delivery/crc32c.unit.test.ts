import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { crc32c, installFastCrc32c, KAFKAJS_CRC32C_MODULE } from '../../../src/write/delivery/crc32c.ts';

const require = createRequire(import.meta.url);
/** kafkajs' own byte-at-a-time CRC-32C (the inner module, which the install leaves alone). */
const theirs = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as (b: Buffer) => number;

/** Deterministic bytes (a linear congruential sequence). */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

describe('crc32c', () => {
  it('is CRC-32C: the check value of "123456789" is 0xe3069283', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });

  it("equals kafkajs' own for every length around its 16-byte steps and every alignment", () => {
    const big = bytes(5000, 7);
    for (let offset = 0; offset < 8; offset++) {
      for (const length of [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1001, 4096, 4990]) {
        const view = big.subarray(offset, offset + length);
        expect(crc32c(view)).toBe(theirs(view));
      }
    }
    // a slice of the pooled Buffer.from memory, as kafkajs' encoders hand it over
    const pooled = Buffer.from('{"type":"FlightCreated","flid":"990001"}');
    expect(crc32c(pooled.subarray(3))).toBe(theirs(pooled.subarray(3)));
  });

  it('puts itself in kafkajs: the record batches it encodes carry the same CRC as before', async () => {
    expect(typeof installFastCrc32c()).toBe('boolean');
    const used = require(KAFKAJS_CRC32C_MODULE) as (b: Buffer) => number;
    const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as {
      RecordBatch: (args: { records: unknown[] }) => Promise<{ buffer: Buffer }>;
    };
    const Record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (args: { key: Buffer; value: Buffer; offsetDelta: number; timestampDelta: number }) => unknown;
    const records = [0, 1, 2].map((i) => Record({ key: Buffer.from(String(990001 + i)), value: bytes(3000 + i, i), offsetDelta: i, timestampDelta: 0 }));
    const batch = (await RecordBatch({ records })).buffer;
    // firstOffset int64, length int32, partitionLeaderEpoch int32, magic int8, crc uint32, then the body it covers
    const crc = batch.readUInt32BE(17);
    const body = batch.subarray(21);
    expect(crc).toBe(theirs(body));
    expect(used(body)).toBe(theirs(body));
  });
});
