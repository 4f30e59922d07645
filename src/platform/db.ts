import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

// int8 stays a string (positions, ids are int64), numeric too; timestamps come back as Date.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  /** Server-side statement_timeout of every session (ms); unset → none. */
  statementTimeoutMs?: number;
  /** Sessions refuse writes (default_transaction_read_only). */
  readOnly?: boolean;
}

export function createPool(connectionString: string, opts: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'msgx',
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    ...(opts.statementTimeoutMs !== undefined ? { statement_timeout: opts.statementTimeoutMs } : {}),
    ...(opts.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // Nor a checked-out one (withTransaction, a projector batch, a LISTEN session): pg-pool takes its
  // own error listener off while a client is lent out, and an 'error' event with no listener kills
  // the process. The statement in flight still fails with the error, and the pool discards the
  // broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Run `fn` inside BEGIN/COMMIT on one pooled client; ROLLBACK and rethrow on any error. A client
 * whose ROLLBACK failed is broken (or still inside the failed transaction): it is discarded, never
 * handed back to the pool for the next caller.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransactionFrom(pool, 'BEGIN', () => undefined, (c) => fn(c));
}

/**
 * `withTransaction` whose BEGIN travels with `opening` — parameterless statements such as the row
 * locks the transaction starts with — in one round trip (the simple query protocol allows several
 * statements without parameters); `fn` gets the rows of each opening statement, in order.
 */
export async function withOpenedTransaction<T>(
  pool: pg.Pool,
  opening: readonly string[],
  fn: (c: pg.PoolClient, opened: readonly Record<string, unknown>[][]) => Promise<T>,
): Promise<T> {
  return withTransactionFrom(pool, ['BEGIN', ...opening].join('; '), (results) => results.slice(1).map((r) => r.rows), fn);
}

async function withTransactionFrom<T, O>(
  pool: pg.Pool,
  begin: string,
  rowsOf: (results: pg.QueryResult[]) => O,
  fn: (c: pg.PoolClient, opened: O) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const res = (await client.query(begin)) as unknown as pg.QueryResult | pg.QueryResult[];
    const result = await fn(client, rowsOf(Array.isArray(res) ? res : [res]));
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: unknown) => {
      broken = e instanceof Error ? e : new Error(String(e));
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

/** A two-column query as a Map: the first column (`k`) → the second (`v`), in row order (a later row wins). */
export async function queryMap<K, V>(q: Queryable, sql: string, params: readonly unknown[]): Promise<Map<K, V>> {
  const { rows } = await q.query<{ k: K; v: V }>(sql, [...params]);
  return new Map(rows.map((r) => [r.k, r.v]));
}

/**
 * Run `sql` (no parameters: a maintenance statement such as VACUUM) on its own session of `pool`,
 * cancelled from another session (`pg_cancel_backend`) when `signal` aborts: a stop need not wait
 * for it. True when it completed, false when the signal cancelled it (or had aborted before it began).
 */
export async function queryUnlessAborted(pool: pg.Pool, sql: string, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  const c = await pool.connect();
  const pid = (c as pg.PoolClient & { processID?: number }).processID;
  const cancel = () => void pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    await c.query(sql);
    return true;
  } catch (err) {
    if (signal?.aborted && sqlState(err) === SqlState.queryCanceled) return false;
    throw err;
  } finally {
    signal?.removeEventListener('abort', cancel);
    c.release();
  }
}

/** SQLSTATE codes we branch on (never on message text). */
export const SqlState = {
  uniqueViolation: '23505',
  divisionByZero: '22012',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
  undefinedTable: '42P01',
  insufficientPrivilege: '42501',
  raiseException: 'P0001',
  queryCanceled: '57014',
  adminShutdown: '57P01',
  crashShutdown: '57P02',
  cannotConnectNow: '57P03',
} as const;

/** SQLSTATE class 08: connection exception (every code of the class). */
const CONNECTION_EXCEPTION_CLASS = '08';
/** Node socket errors (err.code) of a connection that was refused, reset or timed out. */
const SOCKET_ERRORS: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof (err as { code: unknown }).code === 'string'
    ? (err as { code: string }).code
    : undefined;
}

/** Errors that mean "the database is unreachable or restarting" rather than "this statement is wrong". */
export function isConnectionError(err: unknown): boolean {
  const code = sqlState(err);
  if (code !== undefined) {
    if (code.startsWith(CONNECTION_EXCEPTION_CLASS)) return true;
    if (code === SqlState.adminShutdown || code === SqlState.crashShutdown || code === SqlState.cannotConnectNow) return true;
    if (SOCKET_ERRORS.has(code)) return true;
  }
  // Message text as well, for the failures that carry no code: node-postgres rejects a query on a
  // connection that ended with a plain Error ("Connection terminated unexpectedly"), pg-pool's
  // connect timeout is a plain Error ("timeout exceeded when trying to connect"), and an error
  // that wraps a refused connect without copying its code still says "connect ECONNREFUSED".
  return err instanceof Error && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/.test(err.message);
}

/** One round trip: the database answers (a readiness check). */
export async function ping(q: Queryable): Promise<void> {
  await q.query('SELECT 1');
}
