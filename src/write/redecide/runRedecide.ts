/**
 * One `msgx redecide` run without the command line: resolve the range, fold to `from`, decide the
 * rest again, report. The command (src/cli/redecideCommand.ts) and the tests call this.
 */
import { refuseArchivedAfter } from '../../log/archivedHistory.ts';
import type { Queryable } from '../../platform/db.ts';
import { logHead, positionAtOrBefore, positionBefore } from '../../log/head.ts';
import { procStatesOf } from './priorStates.ts';
import { inlinePageReader, WorkerPageReader, type PageReader } from './pageReader.ts';
import { DEFAULT_PAGE_SIZE, Redecision, type RedecideReport, type RedecisionOptions } from './redecision.ts';

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
  /** Where the pages came from: the page worker (its module) and this thread. */
  readonly pages: { readonly worker: number; readonly inline: number; readonly workerModule: string | null };
}

const min = (a: string, b: string): string => (BigInt(a) < BigInt(b) ? a : b);

export async function resolveRange(q: Queryable, range: RedecideRange): Promise<{ from: string; to: string; head: string }> {
  const head = await logHead(q);
  const from = 'position' in range.from ? min(range.from.position, head) : await positionBefore(q, range.from.instant);
  const rawTo = range.to === undefined ? head : 'position' in range.to ? min(range.to.position, head) : await positionAtOrBefore(q, range.to.instant);
  return { from, to: BigInt(rawTo) < BigInt(from) ? from : rawTo, head };
}

export interface RunOptions extends RedecisionOptions {
  /**
   * The database's URL: a range of WORKER_PAGES pages or more is then read and decoded by a worker
   * thread that connects with it (WorkerPageReader), while this thread decides. Without it, or for
   * a shorter range, pages are read and decoded in this thread.
   */
  readonly databaseUrl?: string;
}

/** From this many pages in the range on, a worker thread reads and decodes (its start costs ~1 s of CPU). */
export const WORKER_PAGES = 4;

export async function runRedecide(q: Queryable, range: RedecideRange, opts: RunOptions): Promise<RedecideRun> {
  const { from, to, head } = await resolveRange(q, range);
  // The state before `from` is folded from position 0 (Redecision.start): archived months must be back.
  await refuseArchivedAfter(q, '0', `redecide --from ${from}`);
  const redecision = await Redecision.start(q, from, opts);
  const pages = Number(BigInt(to) - BigInt(from)) / (opts.pageSize ?? DEFAULT_PAGE_SIZE);
  const reader = opts.databaseUrl !== undefined && pages >= WORKER_PAGES ? WorkerPageReader.open(q, opts.databaseUrl, opts.cfg) : undefined;
  let inline = 0;
  const inlineReader = inlinePageReader(q, opts.cfg);
  const counted: PageReader = {
    async *pages(after, upTo, limit) {
      for await (const page of inlineReader.pages(after, upTo, limit)) {
        inline++;
        yield page;
      }
    },
  };
  try {
    await redecision.advance(q, to, reader ?? counted);
  } finally {
    await reader?.close();
  }
  const states = await procStatesOf(q, redecision.replayCandidates());
  const pagesFrom = reader === undefined
    ? { worker: 0, inline, workerModule: null }
    : { worker: reader.workerPages, inline: reader.inlinePages, workerModule: reader.module.href };
  return { redecision, report: redecision.report(states), head, pages: pagesFrom };
}
