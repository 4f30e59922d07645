import { badInput } from './errors.ts';

/**
 * Opaque cursors: base64url of a small JSON tuple tagged with the connection kind, so a cursor of
 * one connection is refused by another with a clear error.
 */
export function encodeCursor(kind: string, key: readonly (string | null)[]): string {
  return Buffer.from(JSON.stringify([kind, ...key]), 'utf8').toString('base64url');
}

export function decodeCursor(kind: string, cursor: string, arity: number): (string | null)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badInput(`after is not a cursor of this connection`, 'after'); // garbage in: the answer, not a fault
  }
  if (
    !Array.isArray(parsed) ||
    parsed[0] !== kind ||
    parsed.length !== arity + 1 ||
    !parsed.slice(1).every((v) => v === null || typeof v === 'string')
  ) {
    throw badInput(`after is not a cursor of this connection`, 'after');
  }
  return parsed.slice(1) as (string | null)[];
}
