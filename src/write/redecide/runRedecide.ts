/**
 * One `msgx redecide` run without the command line: resolve the range, fold to `from`, decide the
 * rest again, report. The command (src/cli/redecideCommand.ts) and the tests call this.
 */
import type { Queryable } from '../../platform/db.ts';
import { logHead, positionAtOrBefore, positionBefore, procStatesOf } from './readLogPage.ts';
import { Redecision, type RedecideReport, type RedecisionOptions } from './redecision.ts';

/** A position (decimal) or an instant. */
export type RangeBound = { readonly position: string } | { readonly instant: Date };

export interface RedecideRange {
  readonly from: RangeBound;
  /** Absent: the log's head when the run starts. */
  readonly to?: RangeBound;
}

export interface RedecideRun {
  readonly redecision: Redecision;
  readonly report: RedecideReport;
  /** The log's head when the run started (an --apply needs the range to reach it). */
  readonly head: string;
}

const min = (a: string, b: string): string => (BigInt(a) < BigInt(b) ? a : b);

export async function resolveRange(q: Queryable, range: RedecideRange): Promise<{ from: string; to: string; head: string }> {
  const head = await logHead(q);
  const from = 'position' in range.from ? min(range.from.position, head) : await positionBefore(q, range.from.instant);
  const rawTo = range.to === undefined ? head : 'position' in range.to ? min(range.to.position, head) : await positionAtOrBefore(q, range.to.instant);
  return { from, to: BigInt(rawTo) < BigInt(from) ? from : rawTo, head };
}

export async function runRedecide(q: Queryable, range: RedecideRange, opts: RedecisionOptions): Promise<RedecideRun> {
  const { from, to, head } = await resolveRange(q, range);
  const redecision = await Redecision.start(q, from, opts);
  await redecision.advance(q, to);
  const states = await procStatesOf(q, redecision.replayCandidates());
  return { redecision, report: redecision.report(states), head };
}
