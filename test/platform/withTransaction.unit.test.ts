/**
 * withTransaction hands a client back to the pool only when it is known to be clean: after COMMIT,
 * or after a ROLLBACK that worked. A client whose ROLLBACK failed is released with the error, which
 * makes pg-pool destroy it instead of lending it to the next caller.
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isConnectionError, withTransaction } from '../../src/platform/db.ts';

/** A pool of one scripted client: records the statements and what release() was given. */
function scriptedPool(failOn: ReadonlySet<string>) {
  const statements: string[] = [];
  const released: unknown[] = [];
  const client = {
    async query(sql: string) {
      statements.push(sql);
      if (failOn.has(sql)) throw new Error(`${sql} failed`);
      return { rows: [] };
    },
    release(err?: unknown) {
      released.push(err);
    },
  };
  const pool = { connect: async () => client } as unknown as pg.Pool;
  return { pool, statements, released };
}

describe('withTransaction', () => {
  it('commits and returns the client to the pool', async () => {
    const p = scriptedPool(new Set());
    await expect(withTransaction(p.pool, async (c) => { await c.query('SELECT 1'); return 7; })).resolves.toBe(7);
    expect(p.statements).toEqual(['BEGIN', 'SELECT 1', 'COMMIT']);
    expect(p.released).toEqual([undefined]);
  });

  it('rolls back, rethrows, and returns a client whose ROLLBACK worked', async () => {
    const p = scriptedPool(new Set(['SELECT 1']));
    await expect(withTransaction(p.pool, (c) => c.query('SELECT 1'))).rejects.toThrow('SELECT 1 failed');
    expect(p.statements).toEqual(['BEGIN', 'SELECT 1', 'ROLLBACK']);
    expect(p.released).toEqual([undefined]);
  });

  it('discards a client whose ROLLBACK failed, and rethrows the original error', async () => {
    const p = scriptedPool(new Set(['SELECT 1', 'ROLLBACK']));
    await expect(withTransaction(p.pool, (c) => c.query('SELECT 1'))).rejects.toThrow('SELECT 1 failed');
    expect(p.released).toHaveLength(1);
    expect(p.released[0]).toBeInstanceOf(Error);
    expect((p.released[0] as Error).message).toBe('ROLLBACK failed');
  });
});

describe('isConnectionError', () => {
  const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it('matches connection SQLSTATEs, socket errors and the code-less texts of node-postgres and pg-pool', () => {
    for (const e of [coded('08006'), coded('08P01'), coded('57P01'), coded('57P02'), coded('57P03'), coded('ECONNRESET'), coded('EPIPE'),
      new Error('Connection terminated unexpectedly'), new Error('timeout exceeded when trying to connect'), new Error('connect ECONNREFUSED 127.0.0.1:5432')]) {
      expect(isConnectionError(e), String(e)).toBe(true);
    }
  });

  it('does not match a statement that is wrong', () => {
    for (const e of [coded('23505'), coded('42P01'), coded('57014'), new Error('syntax error'), 'Connection terminated', null]) {
      expect(isConnectionError(e), String(e)).toBe(false);
    }
  });
});
