import { deliverRows, IDLE, notYetDue, WORKED, type DeliveryContext, type StepResult, type TargetWorker } from './deliverRows.ts';
import type { KafkaSink, SinkRecord } from './kafkaSink.ts';
import { msgRecord } from './msgRecord.ts';
import { claimFreshHead, readHead, type OutboxRow } from './outboxRows.ts';
import { CLAIM_GRACE_MS } from './claimRows.ts';

export interface MsgWorkerOptions {
  readonly topic: string;
  /** Most rows sent in one producer call. */
  readonly batchMax: number;
  /** The target drained (default KAFKA_MSG; AIDX uses the same rules, docs/delivery.md "AIDX"). */
  readonly target?: 'KAFKA_MSG' | 'AIDX';
  /** A row → its record (default msgRecord). */
  readonly record?: (row: OutboxRow) => SinkRecord;
}

/**
 * KAFKA_MSG: one record per row, strict event_id order. A fresh head goes out together with the
 * fresh rows right behind it (one producer call, order kept). After a transient failure the very
 * same rows are sent again, so the idempotent producer repeats the same sequence numbers and the
 * broker drops what it had already stored (a lost response does not duplicate). After a permanent
 * failure the head is retried alone, so one bad record cannot take down its neighbours.
 */
export function createMsgWorker(ctx: DeliveryContext, sink: KafkaSink, opts: MsgWorkerOptions): TargetWorker {
  /** Event ids of the last send, while it is to be repeated as it was. */
  let repeat: readonly string[] | null = null;
  const target = opts.target ?? 'KAFKA_MSG';
  const record = opts.record ?? msgRecord;

  return {
    target,
    async step(): Promise<StepResult> {
      // Usually the head is fresh: read and claimed (for a fenced writer) in one statement.
      const epoch = ctx.fence?.epoch();
      if (epoch !== undefined && repeat === null) {
        const fresh = await claimFreshHead(ctx.pool, target, opts.batchMax, { epoch, graceMs: ctx.claimGraceMs ?? CLAIM_GRACE_MS });
        const head = fresh.rows[0];
        if (head) {
          const result = await deliverRows(ctx, target, fresh.rows, [head], () => sink.send(opts.topic, fresh.rows.map(record)), fresh.fenced);
          repeat = !result.ok && result.failure.transient ? fresh.rows.map((r) => r.eventId) : null;
          return WORKED;
        }
      }
      // Empty, or a head tried before: its backoff, and after a transient failure the same rows again.
      const rows = await readHead(ctx.pool, target, opts.batchMax);
      const head = rows[0];
      if (!head) return IDLE;
      const wait = notYetDue(head, ctx.clock.now());
      if (wait) return wait;
      const batch = head.attempts === 0 ? leadingFresh(rows) : repeat?.[0] === head.eventId ? leadingIds(rows, repeat) : [head];
      const result = await deliverRows(ctx, target, batch, [head], () => sink.send(opts.topic, batch.map(record)));
      repeat = !result.ok && result.failure.transient ? batch.map((r) => r.eventId) : null;
      return WORKED;
    },
  };
}

/** The head and the rows after it that were never tried. */
function leadingFresh(rows: readonly OutboxRow[]): OutboxRow[] {
  const out: OutboxRow[] = [rows[0]!];
  for (const r of rows.slice(1)) {
    if (r.attempts > 0) break;
    out.push(r);
  }
  return out;
}

/** The leading rows whose ids are `ids`, in order (stops at the first that differs). */
function leadingIds(rows: readonly OutboxRow[], ids: readonly string[]): OutboxRow[] {
  const out: OutboxRow[] = [];
  for (const [i, r] of rows.entries()) {
    if (ids[i] !== r.eventId) break;
    out.push(r);
  }
  return out;
}
