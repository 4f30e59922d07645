/**
 * `msgx start --standby` as a child process for the crash matrix, through the test entry point
 * crashMain.ts (for a named crash point with `--crash-at <point>:<n>`, so the child kills itself
 * there): started with the given environment, its output kept as a short tail for failure
 * messages, its exit observable.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Queryable } from '../../../src/platform/db.ts';
import { WRITER_LOCK_KEY } from '../../../src/write/writerLock.ts';
import { CRASH_AT_OPTION } from './crashFaults.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TAIL = 6000;

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface MsgxChild {
  readonly pid: number;
  /** Date.now() at spawn. */
  readonly startedAt: number;
  readonly exit: Promise<ChildExit>;
  /** The exit, once it happened. */
  exited(): ChildExit | null;
  /** Whether the harness sent a signal (a child that died of SIGKILL without one killed itself). */
  signalled(): boolean;
  kill(signal: NodeJS.Signals): void;
  /** The last few KB of stdout + stderr (warn-level logs). */
  output(): string;
}

export function startMsgx(env: Readonly<Record<string, string>>, crashAt?: string): MsgxChild {
  const crash = crashAt ? [CRASH_AT_OPTION, crashAt] : [];
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/reliability/support/crashMain.ts', ...crash, 'start', '--standby'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (b: Buffer) => {
    tail = (tail + b.toString()).slice(-TAIL);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let done: ChildExit | null = null;
  let signalled = false;
  const exit = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => {
      done = { code, signal };
      resolve(done);
    });
  });
  return {
    pid: child.pid ?? -1,
    startedAt: Date.now(),
    exit,
    exited: () => done,
    signalled: () => signalled,
    kill(signal) {
      if (done) return;
      signalled = true;
      child.kill(signal);
    },
    output: () => tail,
  };
}

/** The backend pid of the session holding the writer lock of this database, or null. */
export async function writerLockHolder(q: Queryable): Promise<number | null> {
  const { rows } = await q.query<{ pid: number }>(
    `SELECT pid FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $1 AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [WRITER_LOCK_KEY],
  );
  return rows[0]?.pid ?? null;
}

/** No session holds the writer lock of this database (a killed writer's backend has gone away). */
export async function writerLockFree(q: Queryable): Promise<boolean> {
  return (await writerLockHolder(q)) === null;
}
