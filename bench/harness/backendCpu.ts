/**
 * CPU seconds (user + system) of PostgreSQL backends, read from /proc (the server runs on this
 * machine): of one application_name, or of every session on the pool's database.
 */
import { readFileSync } from 'node:fs';
import type pg from 'pg';

export type BackendCpu = Map<number, number>;

/** CPU seconds by backend pid. */
export async function backendCpu(pool: pg.Pool, applicationName?: string): Promise<BackendCpu> {
  const { rows } = applicationName
    ? await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName])
    : await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  const out: BackendCpu = new Map();
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // not readable, or the backend ended meanwhile
    }
  }
  return out;
}

/** CPU seconds spent between two readings (backends that appeared meanwhile count from zero). */
export const cpuSince = (before: BackendCpu, after: BackendCpu): number =>
  [...after].reduce((sum, [pid, t]) => sum + t - (before.get(pid) ?? 0), 0);
