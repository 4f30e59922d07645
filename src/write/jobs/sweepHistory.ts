import type pg from 'pg';
import type { FlightsArchived } from '../../domain/changes.ts';
import { localDateOf } from '../../domain/time.ts';
import { withTransaction } from '../../platform/db.ts';
import { appendDecisions, lockPipeline, type NewDecision } from '../../log/appendDecisions.ts';
import type { WriteModel } from '../pump/writeModel.ts';

/** Flids per FlightsArchived decision. */
const CHUNK = 1000;

export interface SweepResult {
  readonly beforeDay: string;
  readonly archived: number;
  readonly positions: readonly string[];
}

/** The local date `days` before the local date of `now` in `tz` (YYYY-MM-DD). */
export function cutoffDay(now: Date, tz: string, days: number): string {
  const [y, m, d] = localDateOf(now.toISOString(), tz).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - days)).toISOString().slice(0, 10);
}

/**
 * History sweep (invariant 8): flights whose operation day is before `cutoffDay(now, keepDays)`
 * leave the state through an appended `FlightsArchived` decision (the projector removes their
 * rows when it folds it) — never a silent delete. Decided against the pump's write model, caught
 * up to the log under the pipeline lock; applied to it after COMMIT.
 */
export async function sweepHistory(
  pool: pg.Pool,
  model: WriteModel,
  opts: { now: Date; tz: string; keepDays: number },
): Promise<SweepResult> {
  const beforeDay = cutoffDay(opts.now, opts.tz, opts.keepDays);
  for (let attempt = 0; attempt < 5; attempt++) {
    await model.catchUp(pool);
    const expected = model.position;
    const flids = [...model.flights.values()]
      .filter((f) => f.operationDay < beforeDay)
      .map((f) => f.flid)
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
    if (flids.length === 0) return { beforeDay, archived: 0, positions: [] };
    const changes: FlightsArchived[] = [];
    for (let i = 0; i < flids.length; i += CHUNK) changes.push({ type: 'FlightsArchived', flids: flids.slice(i, i + CHUNK), beforeDay });
    const decisions: NewDecision[] = changes.map((ch) => ({
      msgId: null,
      kind: 'FlightsArchived',
      flids: ch.flids,
      payload: { changes: [ch], keepDays: opts.keepDays },
    }));
    const positions = await withTransaction(pool, async (c) => {
      const last = await lockPipeline(c);
      if (last !== expected) return null;
      return appendDecisions(c, last, decisions, opts.now);
    });
    if (positions === null) continue;
    positions.forEach((p, i) => model.apply(p, null, opts.now, [changes[i]!]));
    return { beforeDay, archived: flids.length, positions };
  }
  throw new Error('history sweep: the log kept moving; try again later');
}
