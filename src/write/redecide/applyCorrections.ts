/**
 * `msgx redecide --apply`: append one `Correction` decision per differing flight, in FIFO order
 * with live traffic. Under the pipeline lock (the lock every append takes, so log order = commit
 * order) the re-decision first catches up with whatever the writer appended since the report, so
 * each correction is computed against the log exactly as it stands before it; then the
 * corrections are appended with the pipeline's one append path and the messages they supersede
 * are recorded (correction_supersedes, for message(id)). The running pump sees the log move, folds
 * the corrections into its write model and decides on from there; projectors, the outbox (Kafka
 * msg/schd, COUTMSGS routes) and flight(asOf) fold a Correction's changes like any decision's.
 */
import type pg from 'pg';
import { withTransaction } from '../../platform/db.ts';
import { appendDecisions, lockPipeline, type NewDecisionOf } from '../../log/appendDecisions.ts';
import type { Redecision, RedecideReport } from './redecision.ts';

export interface CorrectionContext {
  /** Who asked (recorded in each decision). */
  readonly requestedBy: string;
  /** The configuration the re-decision ran with (recorded for the audit). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly now: Date;
}

export interface Applied {
  /** The report as it stood when the corrections were appended (after catching up). */
  readonly report: RedecideReport;
  /** flid → position of its Correction. */
  readonly positions: ReadonlyMap<string, string>;
}

export async function applyCorrections(pool: pg.Pool, redecision: Redecision, ctx: CorrectionContext): Promise<Applied> {
  return withTransaction(pool, async (c) => {
    const last = await lockPipeline(c);
    // Decisions appended since the report: decide them again too (the writer waits meanwhile).
    if (BigInt(last) > BigInt(redecision.position)) await redecision.advance(c, last);
    const report = redecision.report();
    const planned = redecision.corrections();
    const positions = new Map<string, string>();
    if (planned.length === 0) return { report, positions };
    const decisions = planned.map((p): NewDecisionOf<'Correction'> => ({
      msgId: null,
      kind: 'Correction',
      handler: 'redecide',
      handlerVersion: 1,
      flids: [p.flid],
      payload: {
        changes: p.changes,
        reportId: report.reportId,
        from: report.from,
        to: report.to,
        handlerVersions: p.handlerVersions,
        supersedes: p.supersedes,
        config: ctx.config,
        requestedBy: ctx.requestedBy,
      },
    }));
    const appended = await appendDecisions(c, last, decisions, ctx.now);
    planned.forEach((p, i) => positions.set(p.flid, appended[i]!));
    const links = planned.flatMap((p, i) => p.supersedes.map((s) => [s.msgId, appended[i]!] as const));
    if (links.length > 0) {
      await c.query(
        `INSERT INTO correction_supersedes (msg_id, position)
         SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT DO NOTHING`,
        [links.map((l) => l[0]), links.map((l) => l[1])],
      );
    }
    return { report, positions };
  });
}
