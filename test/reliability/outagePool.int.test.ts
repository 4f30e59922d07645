/**
 * A PostgreSQL connection that dies while msgx has it checked out of the pool (inside
 * withTransaction, a projector batch, a LISTEN session) fails what runs on it — it must not crash
 * the process. pg emits 'error' on the client, and pg-pool takes its own listener off while a
 * client is lent out; an 'error' event without a listener would be thrown as an uncaught exception
 * (vitest reports it and fails this file).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, withTransaction, type Pool } from '../../src/platform/db.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { waitFor } from '../support/waitFor.ts';

const db = fileDatabase('outpool');
let pool: Pool;

beforeAll(async () => {
  pool = createPool(db.url, { max: 2 });
});
afterAll(async () => {
  await pool?.end();
});

describe('a checked-out connection that dies', () => {
  it('between two statements of a transaction: the next statement fails, the process lives on, the pool reconnects', async () => {
    let ended = false;
    const tx = withTransaction(pool, async (c) => {
      c.once('end', () => (ended = true)); // (no 'error' listener of our own here: that is what is tested)
      const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Idle in transaction, no statement running: the server ends the session (as a restart does).
      await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await waitFor(() => ended, { what: 'the client to see its connection end' });
      await c.query('SELECT 1');
    });
    await expect(tx).rejects.toThrow();
    const { rows } = await pool.query<{ ok: number }>('SELECT 1 AS ok');
    expect(rows).toEqual([{ ok: 1 }]);
  });

  it('while a statement runs: that statement fails, the process lives on', async () => {
    await expect(withTransaction(pool, (c) => c.query('SELECT pg_terminate_backend(pg_backend_pid())'))).rejects.toThrow();
    const { rows } = await pool.query<{ ok: number }>('SELECT 1 AS ok');
    expect(rows).toEqual([{ ok: 1 }]);
  });
});
