/**
 * Operator actions for the web console (docs/contract/design.md §12): POST /admin/replay,
 * /admin/replay-deliveries, /admin/request-plan, /admin/request-reference, /admin/rebuild — the
 * same operations as the CLI commands, with the same input checks (../inputs.ts), each an audited
 * decision naming its operator (a rebuild's progress goes to operation_progress, which the console
 * reads through the read API). They require
 * `Authorization: Bearer $MSGX_ADMIN_TOKEN`; with the variable unset every /admin path is 404.
 * A token `label:secret` names the operator `console:label` (plus an `X-Msgx-Operator` name, if
 * sent). Browsers cannot send the header cross-site without a CORS preflight, which msgx does not
 * grant, so these are not reachable from another site's page.
 */
import type http from 'node:http';
import { MsgxError, RefusedError, TooLargeError, UsageError } from '../../platform/errors.ts';
import { json, type Route } from '../../platform/http/routes.ts';
import { sameSecret } from '../../platform/http/sameSecret.ts';
import type { Runtime } from '../../platform/runtime.ts';
import { describeWindow } from '../../write/requests/requestPlan.ts';
import { replayDeliveriesInput, replayInput, requestPlanInput, requestReferenceInput } from '../inputs.ts';
import { rebuildFlightsRecorded } from '../rebuild.ts';
import { replay } from '../replay.ts';
import { replayDeadDeliveries } from '../replayDeliveries.ts';
import { requestPlanAsOperator, requestReferenceAsOperator } from '../requests.ts';

/** Room for MAX_IDS ids of 19 digits as a JSON array (about 220 KB): the ids bound, not the bytes, refuses a long list. */
const MAX_BODY = 256 * 1024;

export interface AdminRoutes {
  readonly routes: Route[];
}

export function adminRoutes(rt: Runtime): AdminRoutes {
  const token = rt.cfg.adminToken;
  const label = token?.includes(':') ? token.slice(0, token.indexOf(':')) : 'admin';
  const log = rt.log.child({ role: 'admin' });
  let rebuilding = false;
  const requestDeps = () => ({ pool: rt.pool, mailbox: rt.mailbox, clock: rt.clock, cfg: rt.cfg, log });

  const operatorOf = (req: http.IncomingMessage): string => {
    const named = String(req.headers['x-msgx-operator'] ?? '').trim().replace(/[^\w.@ -]/g, '').slice(0, 40);
    return named ? `console:${label}/${named}` : `console:${label}`;
  };

  const authorised = (req: http.IncomingMessage): boolean => {
    const m = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
    if (!m || !token) return false;
    return sameSecret(m[1]!.trim(), token);
  };

  type Action = (body: Record<string, unknown>, operator: string) => Promise<unknown>;
  // A Map, not an object literal: `/admin/constructor` or `/admin/toString` must not find
  // Object.prototype's members (docs/security.md §12).
  const actions = new Map<string, Action>(Object.entries({
    async replay(body, operator) {
      const input = replayInput(body);
      const done = await replay(rt.pool, rt.clock, { ...input, requestedBy: operator });
      return { replayed: done.map((r) => ({ msgId: r.msgId, fromState: r.fromState, position: r.position })), requestedBy: operator };
    },
    async 'replay-deliveries'(body, operator) {
      const r = await replayDeadDeliveries(rt.pool, rt.clock, { ...replayDeliveriesInput(body), requestedBy: operator });
      return { ...r, requestedBy: operator };
    },
    async 'request-plan'(body, operator) {
      const { from, to } = requestPlanInput(body, rt.cfg.airportTz);
      const r = await requestPlanAsOperator(requestDeps(), from, to, operator);
      const window = describeWindow(from, to, rt.cfg.airportTz);
      if (r.shadow) return { window, sent: false, shadow: true, position: r.position, requestedBy: operator };
      return { mgid: r.mgid, reqId: r.reqId, window, sent: r.send?.sent ?? false, position: r.position, requestedBy: operator };
    },
    async 'request-reference'(body, operator) {
      const { kinds } = requestReferenceInput(body);
      const r = await requestReferenceAsOperator(requestDeps(), kinds, operator);
      if (r.shadow) return { kinds, sent: 0, shadow: true, position: r.position, requestedBy: operator };
      return {
        kinds,
        requests: r.requests.map((q) => ({ kind: q.kind, mgid: q.mgid, reqId: q.reqId, sent: q.send?.sent ?? false })),
        sent: r.requests.filter((q) => q.send?.sent).length,
        position: r.position,
        requestedBy: operator,
      };
    },
    async rebuild(_body, operator) {
      if (rebuilding) throw new RefusedError('a rebuild started from the console is running');
      log.info({ operator }, 'rebuild of the flight read models requested');
      // Its progress and outcome go to operation_progress; the console shows them through the read API.
      rebuilding = true;
      // Answered once it is on record (decision, progress row); runs on after the answer.
      let begun = false;
      const started = await new Promise<{ position: string; operationId: string | null }>((resolve, reject) => {
        const onStarted = (s: { position: string; operationId: string | null }) => {
          begun = true;
          resolve(s);
        };
        // A replay from position 0 folds on a worker thread: this process goes on serving meanwhile.
        rebuildFlightsRecorded({ pool: rt.pool, clock: rt.clock, log }, { startedBy: operator, onStarted, replayThread: 'worker' })
          .then((r) => log.info({ operator, ok: r.ok }, 'rebuild from the console ended'))
          // Before it was on record the request fails (the HTTP boundary reports it); after, only the log can tell.
          .catch((err: unknown) => (begun ? log.error({ err }, 'rebuild from the console failed') : reject(err as Error)))
          .finally(() => (rebuilding = false));
      });
      return { started: true, position: started.position, operation: started.operationId, requestedBy: operator };
    },
  } satisfies Record<string, Action>));

  const handler: Route['handler'] = async (req, res) => {
    const name = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/^\/admin\/?/, '');
    if (!token) return json(res, 404, { error: 'the admin endpoints are off (MSGX_ADMIN_TOKEN is not set)' });
    if (!authorised(req)) {
      res.setHeader('www-authenticate', 'Bearer');
      return json(res, 401, { error: 'Authorization: Bearer <MSGX_ADMIN_TOKEN> required' });
    }
    const action = actions.get(name);
    if (!action) return json(res, 404, { error: `no admin action '${name}'` });
    if (req.method !== 'POST') return json(res, 405, { error: 'POST only' });
    try {
      const operator = operatorOf(req);
      const result = await action(await readJson(req), operator);
      log.info({ action: name, operator }, 'admin action done');
      json(res, 200, result);
    } catch (err) {
      if (err instanceof MsgxError) return json(res, err.httpStatus, { error: err.message });
      throw err;
    }
  };
  return { routes: [{ method: '*', path: '/admin*', handler }] };
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new TooLargeError(`body larger than ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new UsageError('body must be a JSON object');
}
