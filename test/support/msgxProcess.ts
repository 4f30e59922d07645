/**
 * The one way tests and the bench start a child process: `node bin/msgx.js …` (or another entry
 * point, e.g. the crash matrix's test main) for what needs the real process — signals, exit codes,
 * the embedded server, a killed writer.
 * - Environment: the caller's MSGX_* variables are dropped, so only `env` configures the child.
 * - Output: stdout and stderr are collected (each, and both in order of arrival; `keep` bounds it
 *   to a tail for long runs) and can be followed line by line.
 * - Waiting: `exit` resolves once the child exited and its output is read to the end;
 *   `waitForLine` resolves at the first matching line and fails at once if the child exits first.
 * - Cleanup: children still running when their test file ends are killed (setupFiles hook
 *   test/support/childProcesses.setup.ts; the bench calls killMsgxChildren itself).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type MsgxStream = 'stdout' | 'stderr';

export interface MsgxExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface SpawnMsgxOptions {
  /** The script node runs, relative to the repository (default bin/msgx.js; a .ts one runs under tsx). */
  readonly script?: string;
  /** Node options before the script (e.g. --cpu-prof). */
  readonly nodeArgs?: readonly string[];
  /** Its own process group (as a shell gives a foreground job); the end-of-file cleanup kills the group. */
  readonly detached?: boolean;
  /** Keep only the last `keep` characters of each collected text (long-running children). */
  readonly keep?: number;
  /** Every chunk of output as it arrives (a log file, a reaction to what it says). */
  readonly onOutput?: (text: string, stream: MsgxStream) => void;
  /**
   * A command that runs node (e.g. `['ip', 'netns', 'exec', 'ns1']`: the child on another network
   * namespace). It must exec node in place, so that the pid, signals and the exit stay node's.
   */
  readonly prefix?: readonly string[];
}

export interface MsgxProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly pid: number;
  /** Date.now() at spawn. */
  readonly startedAt: number;
  /** The exit, once the child is gone and all it wrote has been read. */
  readonly exit: Promise<MsgxExit>;
  /** The exit, once it happened (and its output is read). */
  exited(): MsgxExit | null;
  /** Send `signal` unless it already exited. */
  kill(signal: NodeJS.Signals): void;
  /** Whether the harness sent it a signal (a child that died of SIGKILL without one killed itself). */
  signalled(): boolean;
  /** `signal` (SIGTERM), then SIGKILL if it is still running after `graceMs`; resolves with the exit. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<MsgxExit>;
  /** The first complete line (of `stream`, default either) that `match` accepts. */
  waitForLine(match: RegExp | string | ((line: string) => boolean), opts?: { stream?: MsgxStream; timeoutMs?: number }): Promise<string>;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  /** What it wrote to stdout (results) so far. */
  stdout(): string;
  /** What it wrote to stderr (logs, errors) so far. */
  stderr(): string;
}

/** Children not yet gone, with whether each leads its own process group. */
const running = new Map<MsgxProcess, { group: boolean }>();

/** SIGKILL every child still running (end of a test file, Ctrl-C of the bench); only ours, by pid. */
export function killMsgxChildren(): void {
  for (const [p, { group }] of running) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
    try {
      process.kill(group ? -p.pid : p.pid, 'SIGKILL');
    } catch {
      // gone in the meantime
    }
  }
}

/** The complete lines in collected `text` (a tail cut by `keep` loses its first, partial line). */
function completeLines(text: string, cut: boolean): string[] {
  const lines = text.split('\n');
  lines.pop();
  return cut ? lines.slice(1) : lines;
}

type LineListener = (line: string, stream: MsgxStream) => void;

export function spawnMsgx(args: readonly string[], env: Readonly<Record<string, string>>, opts: SpawnMsgxOptions = {}): MsgxProcess {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MSGX_')));
  const script = opts.script ?? 'bin/msgx.js';
  const nodeCommand = [process.execPath, ...(opts.nodeArgs ?? []), ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), script, ...args];
  const [command, ...commandArgs] = [...(opts.prefix ?? []), ...nodeCommand] as [string, ...string[]];
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  });
  const startedAt = Date.now();
  const cut = { all: false, stdout: false, stderr: false };
  const text = { all: '', stdout: '', stderr: '' };
  const append = (key: keyof typeof text, s: string) => {
    text[key] += s;
    if (opts.keep !== undefined && text[key].length > opts.keep) {
      text[key] = text[key].slice(text[key].length - opts.keep);
      cut[key] = true;
    }
  };
  const partial = { stdout: '', stderr: '' };
  const lineListeners = new Set<LineListener>();
  const onData = (stream: MsgxStream) => (b: Buffer) => {
    const s = b.toString();
    append('all', s);
    append(stream, s);
    opts.onOutput?.(s, stream);
    const lines = (partial[stream] + s).split('\n');
    partial[stream] = lines.pop()!;
    for (const line of lines) for (const l of lineListeners) l(line, stream);
  };
  child.stdout.on('data', onData('stdout'));
  child.stderr.on('data', onData('stderr'));

  let done: MsgxExit | null = null;
  let signalled = false;
  const exit = new Promise<MsgxExit>((resolve) => {
    // 'close': the child exited and both pipes are drained (at 'exit' some output may be unread).
    child.once('close', (code, signal) => {
      for (const stream of ['stdout', 'stderr'] as const) {
        if (partial[stream] !== '') for (const l of lineListeners) l(partial[stream], stream);
        partial[stream] = '';
      }
      done = { code, signal };
      running.delete(p);
      resolve(done);
    });
  });

  const p: MsgxProcess = {
    child,
    pid: child.pid ?? -1,
    startedAt,
    exit,
    exited: () => done,
    kill(signal) {
      if (done || child.exitCode !== null || child.signalCode !== null) return;
      signalled = true;
      child.kill(signal);
    },
    signalled: () => signalled,
    async stop(signal = 'SIGTERM', graceMs = 30_000) {
      p.kill(signal);
      const timer = setTimeout(() => p.kill('SIGKILL'), graceMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
    waitForLine(match, { stream, timeoutMs = 60_000 } = {}) {
      const accepts = typeof match === 'function' ? match : typeof match === 'string' ? (l: string) => l.includes(match) : (l: string) => match.test(l);
      // What already arrived first (complete lines), then what comes.
      const seen = (stream ? [stream] : (['stdout', 'stderr'] as const)).flatMap((s) => completeLines(text[s], cut[s])).find(accepts);
      if (seen !== undefined) return Promise.resolve(seen);
      if (done) return Promise.reject(new Error(`\`${script} ${args.join(' ')}\` exited (${JSON.stringify(done)}) without printing ${String(match)}; output:\n${text.all.slice(-3000)}`));
      return new Promise<string>((resolve, reject) => {
        const finish = (fn: () => void) => {
          clearTimeout(timer);
          lineListeners.delete(listener);
          fn();
        };
        const listener: LineListener = (line, s) => {
          if ((!stream || s === stream) && accepts(line)) finish(() => resolve(line));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${String(match)} from \`${script} ${args.join(' ')}\`; output:\n${text.all.slice(-3000)}`))),
          timeoutMs,
        );
        lineListeners.add(listener);
        void exit.then((e) =>
          finish(() => reject(new Error(`\`${script} ${args.join(' ')}\` exited (${JSON.stringify(e)}) before it printed ${String(match)}; output:\n${text.all.slice(-3000)}`))),
        );
      });
    },
    output: () => text.all,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
  };
  running.set(p, { group: opts.detached ?? false });
  return p;
}

/** Run `msgx <args>` to its end; what it printed and how it exited. */
export async function runMsgx(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  opts: SpawnMsgxOptions = {},
): Promise<MsgxExit & { stdout: string; stderr: string; output: string }> {
  const p = spawnMsgx(args, env, opts);
  const e = await p.exit;
  return { ...e, stdout: p.stdout(), stderr: p.stderr(), output: p.output() };
}
