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
import { readsFromReplica } from './metrics/metricsRoute.ts';
import { pipelineStatus } from '../readModel/pipelineStatus.ts';

export interface ReadApi {
  readonly routes: readonly Route[];
  readonly services: readonly Service[];
  readonly readiness: readonly ReadinessCheck[];
  readonly yoga: ReadYoga;
  readonly feed: FlightFeed;
}

type ReadRuntime = Pick<Runtime, 'cfg' | 'log' | 'clock' | 'pool' | 'readPool' | 'mailbox'>;

/** One bounded wait of the live feed for the replica to replay a position (it then waits again: docs/read-api.md "Live updates"). */
const REPLICA_FEED_WAIT_MS = 5_000;

export function createReadApi(rt: ReadRuntime, opts: { mode?: ModeProbe } = {}): ReadApi {
  const log = rt.log.child({ role: 'read-api' });
  const mode = opts.mode ?? createModeProbe(rt.readPool);
  const onReplica = readsFromReplica(rt);
  // NOTIFY reaches only sessions on the primary (a hot standby refuses LISTEN, and may not yet show
  // the committed rows when the notification arrives), so the feed listens and reads on rt.pool,
  // which is the same pool as rt.readPool unless MSGX_READ_DATABASE_URL names a replica. Read-only.
  // On a replica it announces a position only once the replica shows it (docs/read-api.md "Live updates").
  const feed = createFlightFeed({
    pool: rt.pool,
    ...(onReplica ? { replica: { db: rt.readPool, waitMs: REPLICA_FEED_WAIT_MS } } : {}),
    clock: rt.clock,
    log: log.child({ scope: 'flight-feed' }),
  });
  const yoga = createReadYoga(
    {
      db: rt.readPool,
      ...(onReplica ? { primary: rt.pool } : {}),
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
  if (onReplica) {
    readiness.push({ name: 'postgres-read', check: async () => void (await rt.readPool.query('SELECT 1')) });
    // docs/scaling.md "Read API replicas": not ready while the replica is more than
    // MSGX_REPLICA_READY_LAG_MS behind the primary's decision log (lag from pipelineStatus, as in `pipeline`).
    readiness.push({ name: 'replica-lag', check: () => replicaWithinLag(rt) });
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

/** Throws (not ready) when the replica is more than MSGX_REPLICA_READY_LAG_MS behind; an unknown lag (primary unreachable) does not. */
async function replicaWithinLag(rt: Pick<Runtime, 'cfg' | 'pool' | 'readPool' | 'clock'>): Promise<void> {
  const { replica } = await pipelineStatus(rt.readPool, { now: rt.clock.now(), tz: rt.cfg.airportTz }, { primary: rt.pool });
  if (replica?.seconds != null && replica.seconds * 1000 > rt.cfg.replicaReadyLagMs) {
    throw new Error(`replica ${replica.positions} positions and ${replica.seconds.toFixed(1)} s behind (limit ${rt.cfg.replicaReadyLagMs} ms)`);
  }
}
