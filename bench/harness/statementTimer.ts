/**
 * A diagnostic for the figures that are bound by database round trips: wall time per SQL
 * statement (from sending it to its result, as the caller waits for it) on every client a pool
 * hands out. Only used on in-process runtimes of the bench.
 */
import type pg from 'pg';
import { nowMs, round } from './stats.ts';

const PATCHED = Symbol('msgx-bench-statement-timer');

export interface StatementTimes {
  /** Top statements by total time: first line of the SQL, calls, total ms. */
  top(n?: number): { sql: string; calls: number; totalMs: number }[];
  reset(): void;
}

export function timeStatements(pool: pg.Pool): StatementTimes {
  const totals = new Map<string, { calls: number; ms: number }>();
  const add = (sql: string, ms: number) => {
    const key = sql.replace(/\s+/g, ' ').trim().slice(0, 90);
    const t = totals.get(key) ?? { calls: 0, ms: 0 };
    t.calls++;
    t.ms += ms;
    totals.set(key, t);
  };
  pool.on('acquire', (client: pg.PoolClient & { [PATCHED]?: true }) => {
    if (client[PATCHED]) return;
    client[PATCHED] = true;
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      const sql = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text ?? '?';
      const t0 = nowMs();
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        // callback style (pool.query uses it)
        const cb = last as (...r: unknown[]) => void;
        return original(...args.slice(0, -1), (...r: unknown[]) => {
          add(sql, nowMs() - t0);
          cb(...r);
        });
      }
      const result = original(...args);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(() => add(sql, nowMs() - t0), () => add(sql, nowMs() - t0));
      }
      return result;
    };
  });
  return {
    top(n = 8) {
      return [...totals]
        .map(([sql, t]) => ({ sql, calls: t.calls, totalMs: round(t.ms) }))
        .sort((a, b) => b.totalMs - a.totalMs)
        .slice(0, n);
    },
    reset: () => totals.clear(),
  };
}
