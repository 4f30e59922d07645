import { formatInZone } from '../../domain/time.ts';
import { registerRequest } from './registerRequest.ts';
import { sendRequests, type RequestDeps, type SendResult } from './sendRequests.ts';

export interface PlanRequestResult {
  readonly reqId: string;
  readonly mgid: string;
  readonly send: SendResult | undefined;
  /** The `PlanRequested` decision (naming the operator when one was given). */
  readonly position: string;
}

/**
 * `msgx request-plan`: register a plan request for [from, to] — a `PlanRequested` decision, naming
 * `requestedBy` when given — and send it right away (RQFD → COUTMSGS).
 */
export async function requestPlan(deps: RequestDeps, from: Date, to: Date, requestedBy?: string): Promise<PlanRequestResult> {
  const reg = await registerRequest(deps.pool, { from, to, now: deps.clock.now(), expireMs: deps.cfg.requestExpireMs, ...(requestedBy !== undefined ? { requestedBy } : {}) });
  if (!reg) throw new Error('plan request was not registered'); // only daily requests can conflict
  const [send] = await sendRequests(deps, reg.reqId);
  return { ...reg, send };
}

/** The window as operators read it: airport local time with offset. */
export function describeWindow(from: Date, to: Date, tz: string): string {
  return `${formatInZone(from.toISOString(), tz)} .. ${formatInZone(to.toISOString(), tz)} (${tz})`;
}
