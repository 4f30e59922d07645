import type pg from 'pg';
import { withTransaction } from '../../platform/db.ts';
import { appendDecisions, lockPipeline } from '../../log/appendDecisions.ts';
import { planRequestRecordedFor } from '../../log/findDecisions.ts';

export interface ShadowRequest {
  readonly from: Date;
  readonly to: Date;
  readonly now: Date;
  /** The local day of a daily scheduled request: recorded at most once per day. */
  readonly dailyFor?: string;
  readonly requestedBy: string;
}

export interface RecordedRequest {
  readonly position: string;
}

/** Why a shadow run records plan requests instead of sending them. */
export const NOT_SENT_IN_SHADOW = 'shadow mode: COUTMSGS is not written (the legacy system owns the shared mailbox)';

/**
 * A plan request in shadow mode: recorded as a `PlanRequestRecorded` decision (window, daily day,
 * operator) and NOT sent — no COUTMSGS row, and no req_track row that a later production writer
 * would send after the cut-over. Returns null when the daily request of `dailyFor` is recorded already.
 */
export async function recordShadowRequest(pool: pg.Pool, req: ShadowRequest): Promise<RecordedRequest | null> {
  return withTransaction(pool, async (c) => {
    const last = await lockPipeline(c);
    if (req.dailyFor !== undefined) {
      if (await planRequestRecordedFor(c, req.dailyFor)) return null;
    }
    const [position] = await appendDecisions(
      c,
      last,
      [{
        msgId: null,
        kind: 'PlanRequestRecorded',
        payload: {
          request: 'RQFD',
          from: req.from.toISOString(),
          to: req.to.toISOString(),
          ...(req.dailyFor !== undefined ? { dailyFor: req.dailyFor } : {}),
          sent: false,
          reason: NOT_SENT_IN_SHADOW,
          requestedBy: req.requestedBy,
        },
      }],
      req.now,
    );
    return { position: position! };
  });
}
