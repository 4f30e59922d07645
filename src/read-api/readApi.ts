/**
 * The read side of one process: GraphQL (+ GraphiQL, SSE subscriptions) at /graphql, the
 * compatibility entry POST /cminmsgs/send, and /metrics — as routes of the shared HTTP server,
 * plus the live-update feed as a service. Uses rt.readPool only, and never writes to it.
 */
import { createModeProbe, type ModeProbe } from '../platform/runMode.ts';
import type { Runtime } from '../platform/runtime.ts';
import type { ReadinessCheck, Service } from '../platform/service.ts';
import { cminmsgsSendRoute, MAX_MESSAGE_BYTES } from './compat/cminmsgsSend.ts';
import { createUploadBudget, withUploadBudget } from './compat/uploadBudget.ts';
import { createReadYoga, GRAPHQL_PATH, type ReadYoga } from './graphql/createYoga.ts';
import { json, type Route } from './httpServer.ts';
import { pageRoutes, serveGraphiql, wantsGraphiql } from './pages/pageRoutes.ts';
import { createFlightFeed, type FlightFeed } from './live/flightFeed.ts';
import { createStreamAdmission, wantsEventStream, type StreamAdmission } from './live/streamAdmission.ts';
import { createMetrics, type Metrics } from './metrics/createMetrics.ts';

export interface ReadApi {
  readonly routes: readonly Route[];
  readonly services: readonly Service[];
  readonly readiness: readonly ReadinessCheck[];
  readonly yoga: ReadYoga;
  readonly feed: FlightFeed;
}

type ReadRuntime = Pick<Runtime, 'cfg' | 'log' | 'clock' | 'pool' | 'readPool' | 'mailbox'>;

export function createReadApi(rt: ReadRuntime, opts: { mode?: ModeProbe } = {}): ReadApi {
  const log = rt.log.child({ role: 'read-api' });
  const mode = opts.mode ?? createModeProbe(rt.readPool);
  // NOTIFY reaches only sessions on the primary (a hot standby refuses LISTEN, and may not yet show
  // the committed rows when the notification arrives), so the feed listens and reads on rt.pool,
  // which is the same pool as rt.readPool unless MSGX_READ_DATABASE_URL names a replica. Read-only.
  const feed = createFlightFeed({ pool: rt.pool, clock: rt.clock, log: log.child({ scope: 'flight-feed' }) });
  const yoga = createReadYoga(
    {
      db: rt.readPool,
      clock: rt.clock,
      log: log.child({ scope: 'graphql' }),
      tz: rt.cfg.airportTz,
      identityIncludeDay: rt.cfg.identityIncludeDay,
      mailbox: rt.mailbox,
      mode,
      allowedOrigins: rt.cfg.allowedOrigins,
      exposePersonalData: rt.cfg.exposePersonalData,
      adminEnabled: rt.cfg.adminToken !== undefined,
    },
    feed,
  );
  const limits = rt.cfg.httpClients;
  const streams = createStreamAdmission({ max: limits.subscriptionsMax, perClient: limits.subscriptionsPerClient });
  const readiness: ReadinessCheck[] = [];
  if (rt.cfg.readDatabaseUrl !== rt.cfg.databaseUrl) {
    readiness.push({ name: 'postgres-read', check: async () => void (await rt.readPool.query('SELECT 1')) });
  }
  return {
    yoga,
    feed,
    services: [feed],
    readiness,
    routes: [
      { method: '*', path: GRAPHQL_PATH, handler: graphqlHandler(yoga, streams) },
      // The offline GraphiQL and the operator console (pages/): same-origin files from npm packages.
      ...pageRoutes(),
      withUploadBudget(
        cminmsgsSendRoute({
          mailbox: rt.mailbox,
          clock: rt.clock,
          log: log.child({ scope: 'compat' }),
          allowedOrigins: rt.cfg.allowedOrigins,
          senders: rt.cfg.compatSenders,
          tz: rt.cfg.airportTz,
          mode,
        }),
        createUploadBudget(limits.uploadBudgetBytes),
        MAX_MESSAGE_BYTES,
      ),
    ],
  };
}

/**
 * Yoga's node listener: it also writes the response (and streams SSE); a board POST is answered by
 * the board cache's front first (graphql/boardFront.ts). A browser's page load gets
 * msgx's own GraphiQL. An SSE request holds a live-subscription slot for as long as its response
 * is open (live/streamAdmission.ts), or is refused at once when there is none.
 */
export function graphqlHandler(yoga: ReadYoga, streams?: StreamAdmission): Route['handler'] {
  return async (req, res) => {
    if (wantsGraphiql(req)) return serveGraphiql(res);
    if (streams && wantsEventStream(req)) {
      const entry = streams.enter(req);
      if (!entry.ok) {
        req.resume();
        res.setHeader('retry-after', '5');
        return json(res, entry.status, { error: entry.reason });
      }
      res.once('close', entry.release);
    } else if (await yoga.front.handle(req, res)) {
      return;
    }
    await yoga.requestListener(req, res);
  };
}

/** GET /metrics (Prometheus text format), for every role. */
export function metricsRoute(metrics: Metrics): Route {
  return {
    method: 'GET',
    path: '/metrics',
    async handler(_req, res) {
      const text = await metrics.scrape();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(text);
    },
  };
}

export function createMetricsRoute(rt: Pick<Runtime, 'readPool' | 'clock'> & Partial<Pick<Runtime, 'mailbox'>>, mode?: ModeProbe, fenced?: { readonly value: number }): Route {
  return metricsRoute(
    createMetrics({ db: rt.readPool, clock: rt.clock, mode: mode ?? createModeProbe(rt.readPool), ...(rt.mailbox ? { mailbox: rt.mailbox } : {}), ...(fenced ? { fenced } : {}) }),
  );
}
