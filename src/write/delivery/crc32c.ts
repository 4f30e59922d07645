/**
 * CRC-32C (Castagnoli) for kafkajs' record batches, about three times faster than the byte-at-a-time
 * table kafkajs ships (`kafkajs/src/protocol/recordBatch/crc32C`): 16 bytes per step through sixteen
 * tables ("slicing by 16"), read as little-endian 32-bit words. Every record batch the producer sends
 * is checksummed whole, so a plan snapshot's 14 MB of `msg` and `schd` records cost ~100 ms of the
 * writer's loop in kafkajs' own function (docs/benchmarks.md, figure 3).
 *
 * kafkajs has no option for it, so `installFastCrc32c` puts this function in place of kafkajs' module
 * in the CommonJS module cache before kafkajs loads its record batch encoder (it requires it
 * lazily, at the first produce request). Same results for every input (crc32c.unit.test.ts compares
 * them with kafkajs' own, including the record batches it encodes).
 */
import { createRequire } from 'node:module';
import { endianness } from 'node:os';

const POLY = 0x82f63b78;
const T = new Int32Array(16 * 256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  T[n] = c;
}
for (let n = 0; n < 256; n++) {
  let c = T[n]!;
  for (let s = 1; s < 16; s++) {
    c = T[c & 0xff]! ^ (c >>> 8);
    T[s * 256 + n] = c;
  }
}
const LITTLE_ENDIAN = endianness() === 'LE';

/** CRC-32C of `buf`, as an unsigned 32-bit number (what kafkajs' crc32C module returns). */
export function crc32c(buf: Uint8Array): number {
  let crc = -1;
  let i = 0;
  const n = buf.length;
  if (LITTLE_ENDIAN) {
    // Byte by byte up to a 4-byte boundary, then 16 bytes a step through a word view.
    while (i < n && ((buf.byteOffset + i) & 3) !== 0) crc = T[(crc ^ buf[i++]!) & 0xff]! ^ (crc >>> 8);
    const words = ((n - i) >>> 4) << 2;
    if (words > 0) {
      const w = new Int32Array(buf.buffer, buf.byteOffset + i, words);
      for (let j = 0; j < words; j += 4) {
        const a = crc ^ w[j]!;
        const b = w[j + 1]!;
        const c = w[j + 2]!;
        const d = w[j + 3]!;
        crc = T[3840 + (a & 0xff)]! ^ T[3584 + ((a >>> 8) & 0xff)]! ^ T[3328 + ((a >>> 16) & 0xff)]! ^ T[3072 + (a >>> 24)]!
          ^ T[2816 + (b & 0xff)]! ^ T[2560 + ((b >>> 8) & 0xff)]! ^ T[2304 + ((b >>> 16) & 0xff)]! ^ T[2048 + (b >>> 24)]!
          ^ T[1792 + (c & 0xff)]! ^ T[1536 + ((c >>> 8) & 0xff)]! ^ T[1280 + ((c >>> 16) & 0xff)]! ^ T[1024 + (c >>> 24)]!
          ^ T[768 + (d & 0xff)]! ^ T[512 + ((d >>> 8) & 0xff)]! ^ T[256 + ((d >>> 16) & 0xff)]! ^ T[d >>> 24]!;
      }
      i += words << 2;
    }
  }
  for (; i < n; i++) crc = T[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** kafkajs' CRC-32C module, which its record batch encoder (`recordBatch/v0`) requires. */
export const KAFKAJS_CRC32C_MODULE = 'kafkajs/src/protocol/recordBatch/crc32C/index.js';

/**
 * Make kafkajs checksum record batches with `crc32c`: its CRC module's exports replaced in the module
 * cache. Returns false (and changes nothing) when kafkajs' encoder already holds its own function —
 * it was loaded before — or the module is not where kafkajs 2.x keeps it; sends are then as correct,
 * only slower.
 */
export function installFastCrc32c(): boolean {
  const require = createRequire(import.meta.url);
  let path: string;
  let encoder: string;
  try {
    path = require.resolve(KAFKAJS_CRC32C_MODULE);
    encoder = require.resolve('kafkajs/src/protocol/recordBatch/v0/index.js');
  } catch {
    return false;
  }
  if (require.cache[encoder] !== undefined) return require(KAFKAJS_CRC32C_MODULE) === crc32c;
  require(KAFKAJS_CRC32C_MODULE);
  const module = require.cache[path];
  if (module === undefined) return false;
  module.exports = crc32c;
  return true;
}
