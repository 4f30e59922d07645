import type { ReadContext } from './context.ts';
import { modeName, readRunMode } from '../../platform/runMode.ts';
import { pipelineStatus } from '../../readModel/pipelineStatus.ts';
import { selectConsistency } from '../sql/selectConsistency.ts';

/** At most this many not-yet-copied CMINMSGS rows are counted into the backlog per query. */
export const UNCOPIED_COUNT_LIMIT = 1000;

const ageSeconds = (now: Date, since: Date | string | null): number | null =>
  since === null ? null : Math.max(0, (now.getTime() - new Date(since).getTime()) / 1000);

/**
 * CMINMSGS rows above the ingest watermark: inserted upstream but not copied yet. Counted so that
 * "backlog 0" right after a POST /cminmsgs/send does not read as "done". null when the mailbox
 * cannot be read (the PostgreSQL part of the status is still shown).
 */
async function uncopied(ctx: ReadContext, watermark: string | null): Promise<number | null> {
  const mailbox = ctx.deps.mailbox;
  if (!mailbox) return 0;
  try {
    // counted by id, never reading the XML: a backlog of large messages costs nothing here
    const n = await mailbox.countAfter(watermark ?? '0', UNCOPIED_COUNT_LIMIT);
    if (unreadable.delete(mailbox)) ctx.deps.log.info('pipeline: mailbox readable again');
    return n;
  } catch (err) {
    // A status screen polls this: say it once per outage, not once per query.
    if (unreadable.has(mailbox)) ctx.deps.log.debug({ err }, 'pipeline: mailbox still not readable');
    else ctx.deps.log.warn({ err }, 'pipeline: mailbox not readable, backlog counts copied messages only');
    unreadable.add(mailbox);
    return null;
  }
}

/** Mailboxes whose last read failed (per mailbox, so that one outage is logged once). */
const unreadable = new WeakSet<object>();

export const pipelineResolvers = {
  Query: {
    async pipeline(_: unknown, _args: unknown, ctx: ReadContext) {
      const now = ctx.deps.clock.now();
      const p = await pipelineStatus(ctx.deps.db, { now, tz: ctx.deps.tz }, ctx.deps.primary ? { primary: ctx.deps.primary } : {});
      const notCopied = await uncopied(ctx, p.watermark);
      const mode = await (ctx.deps.mode ?? (() => readRunMode(ctx.deps.db)))();
      return {
        mode: modeName(mode),
        shadow: mode.topicPrefix === null ? null : {
          active: mode.shadow,
          topicPrefix: mode.topicPrefix,
          since: mode.shadowSince,
          cutoverAt: mode.cutoverAt,
          cutoverPosition: mode.cutoverPosition,
        },
        inboxWatermark: p.watermark,
        backlog: p.backlog + (notCopied ?? 0),
        uncopied: notCopied,
        failed: p.failed,
        dead: p.dead,
        parked: p.parked,
        head: p.head === null ? null : () => ctx.loaders.message.load(p.head!.msgId),
        headAgeSeconds: ageSeconds(now, p.head?.ingestedAt ?? null),
        logPosition: p.lastPosition,
        replica: p.replica,
        projections: p.projections,
        outbox: p.outbox.map((o) => ({
          target: o.target,
          pending: o.pending,
          dead: o.dead,
          oldestPendingAgeSeconds: ageSeconds(now, o.oldestPendingAt),
        })),
        consistency: async () => (await selectConsistency(ctx.deps.db)).latest,
        skippedToday: p.skippedToday,
        writer: p.writer,
      };
    },
  },
};
