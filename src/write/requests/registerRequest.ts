import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { PlanRequested } from '../../domain/changes.ts';
import { appendDecisions, lockPipeline } from '../../log/appendDecisions.ts';
import { withTransaction } from '../../platform/db.ts';

export interface NewPlanRequest {
  readonly from: Date;
  readonly to: Date;
  readonly now: Date;
  /** Until sent, the request expires this long after registration (reset when it is sent). */
  readonly expireMs: number;
  /** The local day a daily scheduled request is for: at most one request per day. */
  readonly dailyFor?: string;
  /** The operator who asked (msgx request-plan, the console), named in the decision; none for the daily one. */
  readonly requestedBy?: string;
}

export interface RegisteredRequest {
  readonly reqId: string;
  readonly mgid: string;
  /** The PlanRequested decision's position. */
  readonly position: string;
}

/**
 * Record a plan request (req_track, REGISTERED) with a new MGID `MSGX-RQ<id>-<random>`: unique
 * here, and unlikely to be confused with a request of an earlier installation. In the same
 * transaction the request goes into the log as a `PlanRequested` decision (its change names MGID
 * and window): the RESP that answers it is decided from the log alone (docs/domain.md), so
 * `msgx redecide` decides it the same way. Returns null when the daily request for `dailyFor`
 * already exists.
 */
export async function registerRequest(pool: pg.Pool, req: NewPlanRequest): Promise<RegisteredRequest | null> {
  return withTransaction(pool, async (c) => {
    // The pipeline lock first (as every appender), so concurrent registrations queue here.
    const last = await lockPipeline(c);
    const { rows: ids } = await c.query<{ id: string }>("SELECT nextval(pg_get_serial_sequence('req_track', 'req_id')) AS id");
    const reqId = ids[0]!.id;
    const mgid = `MSGX-RQ${reqId}-${randomBytes(3).toString('hex').toUpperCase()}`;
    const { rows } = await c.query<{ reqId: string }>(
      `INSERT INTO req_track (req_id, kind, window_from, window_to, mgid, state, registered_at, expires_at, daily_for)
       VALUES ($1, 'RQFD', $2, $3, $4, 'REGISTERED', $5, $6, $7::date)
       ON CONFLICT (daily_for) WHERE daily_for IS NOT NULL DO NOTHING
       RETURNING req_id AS "reqId"`,
      [reqId, req.from, req.to, mgid, req.now, new Date(req.now.getTime() + req.expireMs), req.dailyFor ?? null],
    );
    if (!rows[0]) return null;
    const change: PlanRequested = { type: 'PlanRequested', mgid, windowStart: req.from.toISOString(), windowEnd: req.to.toISOString() };
    const [position] = await appendDecisions(c, last, [{
      msgId: null,
      kind: 'PlanRequested',
      payload: {
        request: 'RQFD', reqId, ...(req.dailyFor !== undefined ? { dailyFor: req.dailyFor } : {}),
        ...(req.requestedBy !== undefined ? { requestedBy: req.requestedBy } : {}), changes: [change],
      },
    }], req.now);
    return { reqId, mgid, position: position! };
  });
}
