/**
 * CPU time spent on a figure's work, as a diagnostic beside wall times (on a shared, loaded machine
 * wall time mostly measures waiting for a core): this process's own (process.cpuUsage) and that of
 * the PostgreSQL backends serving one database (user + system from /proc/<pid>/stat; the server
 * runs on this machine).
 */
import type pg from 'pg';
import { cpuOfPids, cpuSince as backendCpuSince, type BackendCpu } from './backendCpu.ts';

export interface CpuSample {
  readonly process: NodeJS.CpuUsage;
  readonly backends: BackendCpu;
}

async function backendSeconds(q: pg.Pool | pg.Client, database: string): Promise<BackendCpu> {
  const { rows } = await q.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  return cpuOfPids(rows.map((r) => r.pid));
}

export async function cpuNow(q: pg.Pool | pg.Client, database: string): Promise<CpuSample> {
  return { process: process.cpuUsage(), backends: await backendSeconds(q, database) };
}

/** CPU seconds since `before`: this process, and the database's backends (those that ran throughout or started since). */
export async function cpuSince(q: pg.Pool | pg.Client, database: string, before: CpuSample): Promise<{ nodeSeconds: number; postgresSeconds: number }> {
  const used = process.cpuUsage(before.process);
  const after = await backendSeconds(q, database);
  return { nodeSeconds: (used.user + used.system) / 1e6, postgresSeconds: backendCpuSince(before.backends, after) };
}
