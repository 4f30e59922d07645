/**
 * The crash run proper: a chain of `msgx start --standby` children, one per planned kill — it
 * dies at its named crash point, or the harness SIGKILLs it at its random moment — and a last one
 * that is left to drain everything. As in production, the next child is already waiting as a
 * standby while the current one holds the writer lock, and takes over when it dies.
 * Waiting is always on a condition (progress in the database, the lock, a child's exit), never a sleep.
 */
import type { TestDatabase } from '../../support/databases.ts';
import { waitFor } from '../../support/waitFor.ts';
import { startMsgx, writerLockFree, writerLockHolder, type MsgxChild } from './crashChild.ts';
import type { CrashFeeder } from './crashFeeder.ts';
import { describeKill, type Kill } from './crashPlan.ts';
import { isIdle, readProgress, type Progress } from './crashProgress.ts';

const PHASE_TIMEOUT_MS = 90_000;
const DRAIN_TIMEOUT_MS = 120_000;

export interface KillRecord {
  readonly kill: string;
  /** hook: the child killed itself at the point; harness: SIGKILL at the random moment; idle: SIGKILL with nothing left to do. */
  readonly how: 'hook' | 'harness' | 'idle';
  /** From the previous death (or the first spawn) to this one. */
  readonly phaseMs: number;
  /** Decisions in the log when it died. */
  readonly decisions: number;
}

export interface PhaseContext {
  readonly db: TestDatabase;
  readonly env: Readonly<Record<string, string>>;
  readonly feeder: CrashFeeder;
}

export interface ChainResult {
  readonly kills: KillRecord[];
  /** Exit code of the last child after SIGTERM (0 = it stopped cleanly). */
  readonly stopCode: number | null;
  readonly output: string;
}

const withOutput = (child: MsgxChild, last: Progress | undefined) => (err: unknown): never => {
  throw new Error(`${(err as Error).message}\nprogress: ${JSON.stringify(last)}\nchild output:\n${child.output()}`, { cause: err });
};

/** Run the whole chain: one child per planned kill, then the draining one. */
export async function runChain(ctx: PhaseContext, plan: readonly Kill[]): Promise<ChainResult> {
  const alive = new Set<MsgxChild>();
  const spawn = (i: number): MsgxChild => {
    const k = plan[i];
    const child = startMsgx(ctx.env, k?.kind === 'point' ? `${k.point}:${k.hit}` : undefined);
    alive.add(child);
    void child.exit.then(() => alive.delete(child));
    return child;
  };
  let active = spawn(0);
  let previousHolder: number | null = null;
  const kills: KillRecord[] = [];
  try {
    for (const [k, kill] of plan.entries()) {
      const phase = await killPhase(ctx, { active, kill, phasesLeft: plan.length - k, previousHolder, spawnNext: () => spawn(k + 1) });
      kills.push(phase.record);
      active = phase.next;
      previousHolder = phase.holder;
    }
    return { kills, ...(await drainPhase(ctx, active)) };
  } finally {
    for (const c of alive) c.kill('SIGKILL');
    await Promise.all([...alive].map((c) => c.exit));
  }
}

interface PhaseArgs {
  readonly active: MsgxChild;
  readonly kill: Kill;
  /** This phase and the ones after it, not counting the drain. */
  readonly phasesLeft: number;
  /** Backend pid that held the writer lock for the previous child (null: its session is gone). */
  readonly previousHolder: number | null;
  readonly spawnNext: () => MsgxChild;
}

type Verdict = 'exited' | 'reached' | 'idle' | 'unreachable';

function reached(kill: Kill, base: Progress, p: Progress, since: number): boolean {
  if (kill.kind === 'point') return false;
  if (kill.stage === 'uptime') return Date.now() - since >= kill.after;
  return p[kill.stage] >= base[kill.stage] + kill.after;
}

/**
 * One planned kill. The active child is told apart from the previous one's lingering session by
 * the lock holder's backend pid; once it holds the lock, the next child is spawned as its standby.
 */
async function killPhase(ctx: PhaseContext, a: PhaseArgs): Promise<{ record: KillRecord; next: MsgxChild; holder: number | null }> {
  const { db, feeder } = ctx;
  const { active, kill } = a;
  const since = Date.now();
  const base = await readProgress(db.pool);
  // This phase's share of what is left (the drain gets one share too).
  const cap = feeder.released + Math.ceil((feeder.total - feeder.released) / (a.phasesLeft + 1));
  let next: MsgxChild | null = null;
  let holder: number | null = null;
  let last: Progress | undefined;
  const verdict = await waitFor<Verdict | false>(
    async () => {
      if (active.exited()) return 'exited';
      if (next === null) {
        const h = await writerLockHolder(db.pool);
        if (h !== null && h !== a.previousHolder) {
          holder = h;
          next = a.spawnNext();
        }
      }
      const p = (last = await readProgress(db.pool));
      const fed = await feeder.top(p, cap);
      if (reached(kill, base, p, since)) return 'reached';
      if (!fed && feeder.done && next !== null && isIdle(p, feeder.released)) return kill.kind === 'point' ? 'unreachable' : 'idle';
      return false;
    },
    { timeoutMs: PHASE_TIMEOUT_MS, intervalMs: 10, what: `kill ${describeKill(kill)}` },
  ).catch(withOutput(active, last));
  if (verdict === 'unreachable') {
    throw new Error(`crash point ${describeKill(kill)} was never reached: all traffic is done\nchild output:\n${active.output()}`);
  }
  if (verdict !== 'exited') active.kill('SIGKILL');
  const exit = await active.exit;
  if (verdict === 'exited' && (kill.kind !== 'point' || exit.signal !== 'SIGKILL' || active.signalled())) {
    throw new Error(`msgx exited (code ${exit.code}, signal ${exit.signal}) during ${describeKill(kill)}\nchild output:\n${active.output()}`);
  }
  const { decisions } = await readProgress(db.pool);
  if (next === null) {
    // It died before it was seen holding the lock: let its session go, so the next holder is unambiguous.
    await waitFor(() => writerLockFree(db.pool), { what: "the killed writer's lock to be released" });
    holder = null;
    next = a.spawnNext();
  }
  const how = verdict === 'exited' ? 'hook' : verdict === 'idle' ? 'idle' : 'harness';
  return { record: { kill: describeKill(kill), how, phaseMs: Date.now() - since, decisions }, next, holder };
}

/** The last child, without crash point: feed the rest, wait until everything went all the way, stop it with SIGTERM. */
async function drainPhase(ctx: PhaseContext, child: MsgxChild): Promise<{ stopCode: number | null; output: string }> {
  const { db, feeder } = ctx;
  let last: Progress | undefined;
  const verdict = await waitFor<'exited' | 'drained' | false>(
    async () => {
      if (child.exited()) return 'exited';
      const p = (last = await readProgress(db.pool));
      await feeder.top(p, feeder.total);
      return feeder.done && isIdle(p, feeder.released) && 'drained';
    },
    { timeoutMs: DRAIN_TIMEOUT_MS, intervalMs: 20, what: 'the last msgx to drain everything' },
  ).catch(withOutput(child, last));
  if (verdict === 'exited') throw new Error(`msgx exited while draining: ${JSON.stringify(child.exited())}\nchild output:\n${child.output()}`);
  child.kill('SIGTERM');
  const exit = await child.exit;
  return { stopCode: exit.code, output: child.output() };
}
