/**
 * Child processes of the bench: `node bin/msgx.js start …` (the real service, as an operator runs
 * it) and the raw baseline server, both through the tests' spawnMsgx. Their output (pino JSON
 * lines) goes to a log file; readiness is a line the child prints. Only the bench's own
 * children are ever signalled, by their pid (killMsgxChildren).
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnMsgx } from '../../test/support/msgxProcess.ts';
import { BENCH_ENV } from './benchRuntime.ts';

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

export interface ChildOptions {
  readonly label: string;
  /** The script (relative to the repository) and its arguments. */
  readonly script: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /** Returns the HTTP port once a line (msgx logs on stderr, the raw server prints on stdout) says the child is ready, else undefined. */
  readonly ready: (line: Record<string, unknown>) => number | undefined;
  readonly readyTimeoutMs?: number;
}

export async function startChild(opts: ChildOptions): Promise<Child> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `msgx-bench-${opts.label}-`));
  const logFile = path.join(dataDir, 'child.log');
  const log = createWriteStream(logFile);
  // MSGX_BENCH_PROFILE=1: every child writes a V8 CPU profile into its data folder on exit.
  const profile = process.env.MSGX_BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${dataDir}`] : [];
  // MSGX_BENCH_NODE_ARGS: node options for every child, e.g. '--max-semi-space-size=64' (a V8 flag to try before it is made a default).
  const nodeArgs = (process.env.MSGX_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const proc = spawnMsgx(opts.args, { ...BENCH_ENV, MSGX_DATA_DIR: dataDir, ...opts.env }, {
    script: opts.script,
    nodeArgs: [...profile, ...nodeArgs],
    keep: 0, // the log file has it all
    onOutput: (text) => log.write(text),
  });
  const timeoutMs = opts.readyTimeoutMs ?? 120_000;
  let port: number | undefined;
  const readyLine = (text: string): boolean => {
    try {
      port = opts.ready(JSON.parse(text) as Record<string, unknown>);
    } catch {
      return false; // not a JSON line
    }
    return port !== undefined;
  };
  await proc.waitForLine(readyLine, { timeoutMs }).catch(async () => {
    const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
    const e = proc.exited();
    throw new Error(e ? `${opts.label} exited with ${e.code} before it was ready:\n${tail}` : `${opts.label}: not ready after ${timeoutMs} ms (log: ${logFile})`);
  });
  const { pid } = proc;
  return {
    pid,
    port: port!,
    logFile,
    dataDir,
    async memory() {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
    },
    async stop(graceMs = 30_000) {
      const { code } = await proc.stop('SIGTERM', graceMs);
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
    script: 'bin/msgx.js',
    args: ['start', ...args],
    env: { MSGX_HTTP_PORT: '0', MSGX_HTTP_HOST: '127.0.0.1', MSGX_LOG_LEVEL: 'info', ...env },
    ready(line) {
      if (line.msg === 'http listening' && typeof line.port === 'number') port = line.port;
      return line.msg === 'msgx started' ? port ?? -1 : undefined;
    },
  });
}
