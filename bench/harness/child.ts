/**
 * Child processes of the bench: `node bin/msgx.js start …` (the real service, as an operator runs
 * it) and the raw baseline server. Their stdout (pino JSON lines) goes to a log file; readiness is
 * a line the child prints. Only this module's own children are ever signalled, by their pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BENCH_ENV } from './benchRuntime.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  readonly pid: number;
  readonly port: number;
  readonly logFile: string;
  readonly dataDir: string;
  /** Resident set size now and its peak (VmHWM), in MiB, from /proc. */
  memory(): Promise<{ rssMb: number; peakMb: number }>;
  /** SIGTERM, wait for the exit (SIGKILL after `graceMs`); resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Kill children still running (Ctrl-C of the bench, a failed figure). */
export function killChildren(): void {
  for (const c of running) if (c.pid !== undefined && c.exitCode === null) process.kill(c.pid, 'SIGKILL');
}

/** The environment of a child: PATH/HOME etc. of this process, none of its MSGX_* variables. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MSGX_')) env[k] = v;
  return { ...env, ...BENCH_ENV, ...extra };
}

export interface ChildOptions {
  readonly label: string;
  /** Arguments after `node` (a script and its arguments). */
  readonly argv: readonly string[];
  readonly env: Record<string, string>;
  /** Returns the HTTP port once a stdout line says the child is ready, else undefined. */
  readonly ready: (line: Record<string, unknown>) => number | undefined;
  readonly readyTimeoutMs?: number;
}

export async function startChild(opts: ChildOptions): Promise<Child> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `msgx-bench-${opts.label}-`));
  const logFile = path.join(dataDir, 'child.log');
  const log = createWriteStream(logFile);
  // MSGX_BENCH_PROFILE=1: every child writes a V8 CPU profile into its data folder on exit.
  const profile = process.env.MSGX_BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${dataDir}`] : [];
  const proc = spawn(process.execPath, [...profile, ...opts.argv], {
    cwd: REPO_ROOT,
    env: childEnv({ MSGX_DATA_DIR: dataDir, ...opts.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => {
    running.delete(proc);
    resolve(code);
  }));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${opts.label}: not ready after ${opts.readyTimeoutMs ?? 120_000} ms (log: ${logFile})`)), opts.readyTimeoutMs ?? 120_000);
    // msgx logs to stderr (stdout is for command results); the raw baseline prints its line to stdout.
    const onLine = (text: string) => {
      log.write(`${text}\n`);
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      const p = opts.ready(parsed);
      if (p !== undefined) {
        clearTimeout(timer);
        resolve(p);
      }
    };
    createInterface({ input: proc.stdout! }).on('line', onLine);
    createInterface({ input: proc.stderr! }).on('line', onLine);
    void exited.then(async (code) => {
      clearTimeout(timer);
      const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
      reject(new Error(`${opts.label} exited with ${code} before it was ready:\n${tail}`));
    });
  });
  const pid = proc.pid!;
  return {
    pid,
    port,
    logFile,
    dataDir,
    async memory() {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
    },
    async stop(graceMs = 30_000) {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      log.end();
      // The NDJSON sink's output can be tens of MB; the log (and CPU profiles) stay.
      await rm(path.join(dataDir, 'out'), { recursive: true, force: true });
      return code;
    },
  };
}

/** `node bin/msgx.js start <args>`; ready at its "msgx started" line (port from /graphql URL or http listening). */
export function startMsgx(label: string, args: readonly string[], env: Record<string, string>): Promise<Child> {
  let port: number | undefined;
  return startChild({
    label,
    argv: ['bin/msgx.js', 'start', ...args],
    env: { MSGX_HTTP_PORT: '0', MSGX_HTTP_HOST: '127.0.0.1', MSGX_LOG_LEVEL: 'info', ...env },
    ready(line) {
      if (line.msg === 'http listening' && typeof line.port === 'number') port = line.port;
      return line.msg === 'msgx started' ? port ?? -1 : undefined;
    },
  });
}
