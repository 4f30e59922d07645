import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a presented secret equals the expected one, in time that depends on neither (nor on
 * their lengths): both are hashed to 32 bytes first, and the digests compared in constant time
 * (docs/security.md §2). Comparing the raw bytes needs equal lengths, and checking the length
 * first tells an attacker the token's length.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
