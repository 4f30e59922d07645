/**
 * CPU time spent on a figure's work, as a diagnostic beside wall times (on a shared, loaded machine
 * wall time mostly measures waiting for a core): this process's own (process.cpuUsage) and that of
 * the PostgreSQL backends serving one database (user + system from /proc/<pid>/stat; the server
 * runs on this machine).
 */
import { readFileSync } from 'node:fs';
import type pg from 'pg';

export interface CpuSample {
  readonly process: NodeJS.CpuUsage;
  readonly backends: ReadonlyMap<number, number>;
}

async function backendSeconds(q: pg.Pool | pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await q.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  const out = new Map<number, number>();
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

export async function cpuNow(q: pg.Pool | pg.Client, database: string): Promise<CpuSample> {
  return { process: process.cpuUsage(), backends: await backendSeconds(q, database) };
}

/** CPU seconds since `before`: this process, and the database's backends (those that ran throughout or started since). */
export async function cpuSince(q: pg.Pool | pg.Client, database: string, before: CpuSample): Promise<{ nodeSeconds: number; postgresSeconds: number }> {
  const used = process.cpuUsage(before.process);
  const after = await backendSeconds(q, database);
  const postgresSeconds = [...after].reduce((sum, [pid, t]) => sum + t - (before.backends.get(pid) ?? 0), 0);
  return { nodeSeconds: (used.user + used.system) / 1e6, postgresSeconds };
}
