/**
 * `msgx start --standby` as a child process for the crash matrix, through the test entry point
 * crashMain.ts (for a named crash point with `--crash-at <point>:<n>`, so the child kills itself
 * there): started with the given environment, its output kept as a short tail for failure
 * messages, its exit observable.
 */
import type { Queryable } from '../../../src/platform/db.ts';
import { WRITER_LOCK_KEY } from '../../../src/domain/contract.ts';
import { spawnMsgx, type MsgxProcess } from '../../support/msgxProcess.ts';
import { CRASH_AT_OPTION } from './crashFaults.ts';

/** Its output is the last few KB of stdout + stderr (warn-level logs). */
export type MsgxChild = MsgxProcess;

export function startMsgx(env: Readonly<Record<string, string>>, crashAt?: string): MsgxChild {
  const crash = crashAt ? [CRASH_AT_OPTION, crashAt] : [];
  return spawnMsgx([...crash, 'start', '--standby'], env, { script: 'test/reliability/support/crashMain.ts', keep: 6000 });
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
