/**
 * Reference requests (RQRD, reference.md): one req_track row per kind asked for (kind 'RQRD',
 * ref_kind = the kind, no window), sent through the same path as plan requests (sendRequests:
 * REGISTERED → SENT → WAITING), DONE when a RESP of that kind is decided (answerRequests), EXPIRED
 * after MSGX_REQUEST_EXPIRE_MS (expireRequests).
 */
import { randomBytes } from 'node:crypto';
import { REFERENCE_KIND_NAMES } from '../../domain/reference/kinds.ts';
import type { Queryable } from '../../platform/db.ts';
import { recordOperatorAction } from '../../log/operatorAction.ts';
import { sendRequests, type RequestDeps, type SendResult } from './sendRequests.ts';
import { referenceApplied } from '../../log/findDecisions.ts';

export interface ReferenceRequestResult {
  readonly kind: string;
  readonly reqId: string;
  readonly mgid: string;
  readonly send: SendResult | undefined;
}

/** Record one RQRD request (REGISTERED) for `kind`. */
export async function registerReferenceRequest(db: Queryable, kind: string, now: Date, expireMs: number): Promise<{ reqId: string; mgid: string }> {
  const { rows: ids } = await db.query<{ id: string }>("SELECT nextval(pg_get_serial_sequence('req_track', 'req_id')) AS id");
  const reqId = ids[0]!.id;
  const mgid = `MSGX-RR${reqId}-${randomBytes(3).toString('hex').toUpperCase()}`;
  await db.query(
    `INSERT INTO req_track (req_id, kind, ref_kind, mgid, state, registered_at, expires_at)
     VALUES ($1, 'RQRD', $2, $3, 'REGISTERED', $4, $5)`,
    [reqId, kind, mgid, now, new Date(now.getTime() + expireMs)],
  );
  return { reqId, mgid };
}

export interface ReferenceRequestBatch {
  readonly requests: readonly ReferenceRequestResult[];
  /** The `ReferenceRequested` decision naming the operator; null when no operator was named. */
  readonly position: string | null;
}

/**
 * `msgx request-reference`: register one request per kind (default: all 23) and send each right
 * away. With `requestedBy`, one `ReferenceRequested` decision naming that operator follows the
 * sends (appended before, it would wake the writer's tracker into racing them; see requestPlan).
 */
export async function requestReference(deps: RequestDeps, kinds: readonly string[] = REFERENCE_KIND_NAMES, requestedBy?: string): Promise<ReferenceRequestBatch> {
  const requests: ReferenceRequestResult[] = [];
  for (const kind of kinds) {
    const reg = await registerReferenceRequest(deps.pool, kind, deps.clock.now(), deps.cfg.requestExpireMs);
    const [send] = await sendRequests(deps, reg.reqId);
    requests.push({ kind, ...reg, send });
  }
  const position = requestedBy === undefined
    ? null
    : await recordOperatorAction(
      deps.pool,
      {
        kind: 'ReferenceRequested',
        requestedBy,
        payload: { request: 'RQRD', kinds: [...kinds], requests: requests.map((r) => ({ kind: r.kind, reqId: r.reqId, mgid: r.mgid, sent: r.send?.sent ?? false })) },
      },
      deps.clock.now(),
    );
  return { requests, position };
}

/**
 * MSGX_REQUEST_REFERENCE_AT_START: a writer whose reference store is empty (no reference decision
 * in the log) asks for every kind, once — not again while such requests are still open (a restart
 * before the AODB answered).
 */
export async function requestReferenceAtStart(deps: RequestDeps): Promise<ReferenceRequestBatch | null> {
  if (await referenceApplied(deps.pool)) return null;
  const { rows } = await deps.pool.query<{ open: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM req_track WHERE kind = 'RQRD' AND state IN ('REGISTERED', 'SENT', 'WAITING')) AS open",
  );
  if (rows[0]?.open) return null;
  return requestReference(deps);
}
