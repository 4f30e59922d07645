import { deliverRows, IDLE, notYetDue, WORKED, type DeliveryContext, type StepResult, type TargetWorker } from './deliverRows.ts';
import type { KafkaSink } from './kafkaSink.ts';
import { CLAIM_GRACE_MS } from './claimRows.ts';
import { claimSchdBatch, countUnclaimedSchd, readOpenSchdBatch, type SchdBatch } from './schdBatch.ts';
import type { OutboxRow } from './outboxRows.ts';
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
 * before anything newer is sent (the next full batch may already be claimed: see `ahead`).
 */
export function createSchdWorker(ctx: DeliveryContext, sink: KafkaSink, opts: SchdWorkerOptions): TargetWorker {
  let nextFlushAt = ctx.clock.now().getTime() + opts.flushMs;
  /**
   * The full batch after the one being sent, claimed while it is sent (docs/delivery.md "KAFKA_SCHD"):
   * taken by the next step only when that send was delivered; otherwise the next step reads the
   * open batches afresh (the oldest first), as after a restart.
   */
  let ahead: Promise<SchdBatch | undefined> | undefined;

  /** Batched and claimed for this epoch in one statement (schdBatch.ts) where the writer is fenced. */
  const claim = (): Promise<SchdBatch> => {
    nextFlushAt = ctx.clock.now().getTime() + opts.flushMs;
    const epoch = ctx.fence?.epoch();
    return claimSchdBatch(ctx.pool, opts.flushLimit, epoch === undefined ? undefined : { epoch, graceMs: ctx.claimGraceMs ?? CLAIM_GRACE_MS });
  };

  /** The next batch if a full one is pending (a partial one waits for its flush time, as in `step`). */
  const claimFull = async (): Promise<SchdBatch | undefined> =>
    (await countUnclaimedSchd(ctx.pool, opts.flushLimit)) >= opts.flushLimit ? claim() : undefined;

  const deliver = async (batch: readonly OutboxRow[], claimed = false): Promise<StepResult> => {
    let next: Promise<SchdBatch | undefined> | undefined;
    const sent = await deliverRows(ctx, 'KAFKA_SCHD', batch, batch, async () => {
      // Only behind a full batch: a plan's thousands of flights go out batch after batch.
      if (batch.length >= opts.flushLimit) {
        next = claimFull();
        next.catch(() => undefined); // a failed claim: the next step reads the open batches afresh
      }
      const [ref] = await sink.send(opts.topic, [schdRecord(batch)]);
      return batch.map(() => ref);
    }, claimed);
    // A batch that was not delivered goes again before the one claimed behind it (readOpenSchdBatch: oldest first).
    if (sent.ok) ahead = next;
    else await next?.catch(() => undefined);
    return WORKED;
  };

  return {
    target: 'KAFKA_SCHD',
    async step(): Promise<StepResult> {
      const claimedAhead = await takeAhead();
      if (claimedAhead) return deliver(claimedAhead.rows, claimedAhead.fenced);
      const open = await readOpenSchdBatch(ctx.pool);
      const now = ctx.clock.now();
      if (open[0]) return notYetDue(open[0], now) ?? deliver(open);

      const pending = await countUnclaimedSchd(ctx.pool, opts.flushLimit);
      if (pending === 0) return IDLE;
      if (pending < opts.flushLimit && now.getTime() < nextFlushAt) return { kind: 'wait', until: new Date(nextFlushAt) };
      const batch = await claim();
      return batch.rows.length > 0 ? deliver(batch.rows, batch.fenced) : IDLE;
    },
  };

  /** The batch claimed ahead, if its claim went through and found rows (once). */
  async function takeAhead(): Promise<SchdBatch | undefined> {
    const next = ahead;
    ahead = undefined;
    const batch = await next?.catch(() => undefined);
    return batch && batch.rows.length > 0 ? batch : undefined;
  }
}
