/**
 * Plan and reference requests asked for by an operator (`msgx request-plan`, `msgx
 * request-reference`, the console's buttons through /admin): one path for both, so both behave
 * the same in shadow mode and both leave a decision naming the operator.
 *
 * In shadow mode nothing is sent (COUTMSGS belongs to the legacy system) and no req_track row is
 * left for a production writer to send after the cut-over: the request is recorded as a decision
 * with `sent: false` (`PlanRequestRecorded`, `ReferenceRequested`).
 */
import type { Config } from '../platform/config.ts';
import { commandMode } from '../platform/runMode.ts';
import { recordOperatorAction } from '../log/operatorAction.ts';
import { NOT_SENT_IN_SHADOW, recordShadowRequest } from '../write/requests/recordShadowRequest.ts';
import { requestPlan, type PlanRequestResult } from '../write/requests/requestPlan.ts';
import { requestReference, type ReferenceRequestResult } from '../write/requests/requestReference.ts';
import type { RequestDeps } from '../write/requests/sendRequests.ts';

export type OperatorRequestDeps = RequestDeps & { readonly cfg: RequestDeps['cfg'] & Pick<Config, 'shadow'> };

export type PlanRequestOutcome =
  | { readonly shadow: true; readonly position: string }
  | ({ readonly shadow: false; readonly position: string } & Omit<PlanRequestResult, 'position'>);

export type ReferenceRequestOutcome =
  | { readonly shadow: true; readonly position: string }
  | { readonly shadow: false; readonly position: string; readonly requests: readonly ReferenceRequestResult[] };

export async function requestPlanAsOperator(deps: OperatorRequestDeps, from: Date, to: Date, requestedBy: string): Promise<PlanRequestOutcome> {
  if ((await commandMode(deps.pool, deps.cfg)).shadow) {
    const rec = await recordShadowRequest(deps.pool, { from, to, now: deps.clock.now(), requestedBy });
    return { shadow: true, position: rec!.position };
  }
  const r = await requestPlan(deps, from, to, requestedBy);
  return { ...r, shadow: false };
}

export async function requestReferenceAsOperator(deps: OperatorRequestDeps, kinds: readonly string[], requestedBy: string): Promise<ReferenceRequestOutcome> {
  if ((await commandMode(deps.pool, deps.cfg)).shadow) {
    const position = await recordOperatorAction(
      deps.pool,
      { kind: 'ReferenceRequested', requestedBy, payload: { request: 'RQRD', kinds: [...kinds], sent: false, reason: NOT_SENT_IN_SHADOW } },
      deps.clock.now(),
    );
    return { shadow: true, position };
  }
  const r = await requestReference(deps, kinds, requestedBy);
  return { shadow: false, position: r.position!, requests: r.requests };
}
