import { formatOutward } from '../../domain/time.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Head } from './findHeads.ts';

/** Decision kinds that leave a message for an operator: one warn line each. */
const OPERATOR_KINDS: ReadonlySet<string> = new Set(['Dead', 'Parked']);

interface Decided {
  readonly head: { readonly msgId: string };
  readonly outcome: { readonly kind: string; readonly errorClass?: string; readonly causeClass?: string | null; readonly error?: string; readonly reason?: string };
}

/** After COMMIT: one warn line per message that ended DEAD or PARKED (what, why, where in the log). */
export function warnOperatorWork(log: Logger, decided: readonly Decided[], positions: readonly string[]): void {
  decided.forEach(({ head, outcome }, k) => {
    if (!OPERATOR_KINDS.has(outcome.kind)) return;
    const state = outcome.kind === 'Dead' ? 'DEAD' : 'PARKED';
    log.warn(
      {
        msgId: head.msgId,
        state,
        position: positions[k],
        ...(outcome.errorClass ? { errorClass: outcome.errorClass } : {}),
        ...(outcome.causeClass ? { causeClass: outcome.causeClass } : {}),
        error: outcome.error ?? outcome.reason,
      },
      `message ${head.msgId} is ${state}${outcome.errorClass ? ` (${outcome.errorClass}${outcome.causeClass ? `/${outcome.causeClass}` : ''})` : ''}; see msgx status, then msgx replay`,
    );
  });
}

/**
 * One warn line per head that has blocked the FIFO for longer than `thresholdMs` (a FAILED head
 * retrying since its first failure): nothing behind it moves. Said once per head, not per scan.
 */
export class BlockedHeadWarning {
  private warned: string | null = null;

  constructor(
    private readonly log: Logger,
    private readonly thresholdMs: number,
    /** The airport zone: the log's business times carry its offset (interface.md). */
    private readonly tz: string,
  ) {}

  check(head: Head | undefined, now: Date): void {
    if (head?.state !== 'FAILED' || !head.firstFailureAt) return;
    const blockedMs = now.getTime() - head.firstFailureAt.getTime();
    if (blockedMs < this.thresholdMs || this.warned === head.msgId) return;
    this.warned = head.msgId;
    this.log.warn(
      { msgId: head.msgId, attempts: head.attempts, blockedSeconds: Math.round(blockedMs / 1000), nextAttemptAt: head.nextAttemptAt ? formatOutward(head.nextAttemptAt.toISOString(), this.tz) : undefined },
      `head ${head.msgId} has blocked the pipeline for ${Math.round(blockedMs / 1000)} s (${head.attempts} attempts); nothing behind it moves`,
    );
  }
}
