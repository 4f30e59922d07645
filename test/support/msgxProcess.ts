/**
 * `node bin/msgx.js …` as a child process for tests that need the real process (signals, exit
 * codes, the embedded server): the caller's MSGX_* variables are dropped so only `env` configures
 * it; stdout and stderr are collected (each, and both in order of arrival).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface MsgxProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  /** What it wrote to stdout (results) so far. */
  stdout(): string;
  /** What it wrote to stderr (logs, errors) so far. */
  stderr(): string;
}

export function spawnMsgx(args: readonly string[], env: Readonly<Record<string, string>>, opts: { detached?: boolean } = {}): MsgxProcess {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MSGX_')));
  const child = spawn(process.execPath, ['bin/msgx.js', ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  });
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    out += b.toString();
    stderr += b.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exit, output: () => out, stdout: () => stdout, stderr: () => stderr };
}
