import { deliverRows, IDLE, notYetDue, WORKED, type DeliveryContext, type StepResult, type TargetWorker } from './deliverRows.ts';
import type { KafkaSink } from './kafkaSink.ts';
import { CLAIM_GRACE_MS } from './claimRows.ts';
import { claimSchdBatch, countUnclaimedSchd, readOpenSchdBatch } from './schdBatch.ts';
import { schdRecord } from './schdRecord.ts';

export interface SchdWorkerOptions {
  readonly topic: string;
  /** MSGX_SCHD_FLUSH_MS: a flush every this often while rows are pending. */
  readonly flushMs: number;
  /** MSGX_SCHD_FLUSH_LIMIT: flush at once when this many rows are pending; also the batch size. */
  readonly flushLimit: number;
}

/**
 * KAFKA_SCHD: every flushMs (or as soon as flushLimit rows are pending) claim the pending rows in
 * event_id order as one batch and send ONE record with the newest flight record per FLID. The
 * batch succeeds, backs off or goes DEAD as a whole; a failed batch is retried as the same rows
 * before anything newer is claimed.
 */
export function createSchdWorker(ctx: DeliveryContext, sink: KafkaSink, opts: SchdWorkerOptions): TargetWorker {
  let nextFlushAt = ctx.clock.now().getTime() + opts.flushMs;

  const deliver = async (batch: Awaited<ReturnType<typeof readOpenSchdBatch>>, claimed = false): Promise<StepResult> => {
    await deliverRows(ctx, 'KAFKA_SCHD', batch, batch, async () => {
      const [ref] = await sink.send(opts.topic, [schdRecord(batch)]);
      return batch.map(() => ref);
    }, claimed);
    return WORKED;
  };

  return {
    target: 'KAFKA_SCHD',
    async step(): Promise<StepResult> {
      const open = await readOpenSchdBatch(ctx.pool);
      const now = ctx.clock.now();
      if (open[0]) return notYetDue(open[0], now) ?? deliver(open);

      const pending = await countUnclaimedSchd(ctx.pool, opts.flushLimit);
      if (pending === 0) return IDLE;
      if (pending < opts.flushLimit && now.getTime() < nextFlushAt) return { kind: 'wait', until: new Date(nextFlushAt) };
      nextFlushAt = now.getTime() + opts.flushMs;
      // Batched and claimed for this epoch in one statement (schdBatch.ts) where the writer is fenced.
      const epoch = ctx.fence?.epoch();
      const batch = await claimSchdBatch(ctx.pool, opts.flushLimit, epoch === undefined ? undefined : { epoch, graceMs: ctx.claimGraceMs ?? CLAIM_GRACE_MS });
      return batch.rows.length > 0 ? deliver(batch.rows, batch.fenced) : IDLE;
    },
  };
}
