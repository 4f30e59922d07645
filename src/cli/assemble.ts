import { createHttpServer, type Route } from '../read-api/httpServer.ts';
import { createMetricsRoute, createReadApi } from '../read-api/readApi.ts';
import type { Decider } from '../domain/decide.ts';
import type { Runtime } from '../platform/runtime.ts';
import { createProjectionServices } from '../projections/projectionServices.ts';
import type { ReadinessCheck, Service } from '../platform/service.ts';
import { createSentinel } from '../consistency/sentinel.ts';
import { createBackfill } from '../write/backfill/backfillService.ts';
import { createDeliveryServices } from '../write/delivery/deliveryServices.ts';
import { createIngest } from '../write/ingest/ingestService.ts';
import { createJobs } from '../write/jobs/jobsService.ts';
import { createPump } from '../write/pump/pumpService.ts';
import { WriteModel } from '../write/pump/writeModel.ts';
import { createWriterLock } from '../write/writerLock.ts';

export const ROLES = ['all', 'writer', 'api'] as const;
/** A writer that lost its lock exits at the latest this long after noticing (issue 13). */
export const LOST_EXIT_MS = 15_000;
export type Role = (typeof ROLES)[number];

export interface App {
  start(): Promise<void>;
  stop(): Promise<void>;
  httpPort(): number;
  /** Why the app stopped itself, if it did (the writer lost its lock): the process must exit non-zero. */
  failure(): Error | undefined;
}

/**
 * The composition root: which services run for a role, in start order (stopped in reverse).
 * writer = ingest, pump, projectors, dispatcher, jobs; api = HTTP (GraphQL, compat, health, metrics).
 */
export interface AssembleOptions {
  readonly role: Role;
  readonly standby: boolean;
  /** The pump's handlers (default: the registry's); tests inject another set here. */
  readonly decide?: Decider;
}

export async function assemble(rt: Runtime, opts: AssembleOptions): Promise<App> {
  const readiness: ReadinessCheck[] = [
    { name: 'postgres', check: async () => void (await rt.pool.query('SELECT 1')) },
    { name: 'mailbox', check: () => rt.mailbox.ping() },
  ];
  const routes: Route[] = [];
  const services: Service[] = [];
  let failure: Error | undefined;

  routes.push(createMetricsRoute(rt));
  if (opts.role === 'all' || opts.role === 'api') {
    // GraphQL (+ SSE subscriptions), POST /cminmsgs/send; the live-update feed runs as a service.
    const readApi = createReadApi(rt);
    routes.push(...readApi.routes);
    readiness.push(...readApi.readiness);
    services.push(...readApi.services);
  }

  const http = createHttpServer({
    host: rt.cfg.http.host,
    port: rt.cfg.http.port,
    log: rt.log.child({ role: 'http' }),
    routes,
    readiness,
    maxConnections: rt.cfg.httpMaxConnections,
  });
  services.push(http);

  if (opts.role === 'all' || opts.role === 'writer') {
    // Single writer first (refuses, or waits with --standby), then ingest → pump → backfill → jobs.
    const writerLog = rt.log.child({ role: 'writer' });
    const onLost = (err: Error) => {
      failure ??= err;
      process.kill(process.pid, 'SIGTERM');
      // Deciding and delivering are already fenced (lock.assertHeld); if the orderly stop hangs on
      // a dead connection, leave anyway so that a supervisor restarts a clean process.
      setTimeout(() => {
        rt.log.fatal({ err }, `writer lock lost and the stop did not finish within ${LOST_EXIT_MS} ms; exiting`);
        process.exit(1);
      }, LOST_EXIT_MS).unref();
    };
    const lock = createWriterLock({ url: rt.databaseUrl, standby: opts.standby, clock: rt.clock, log: writerLog, onLost });
    services.push(lock);
    const model = new WriteModel();
    const backfill = createBackfill(rt);
    const ingest = createIngest(rt);
    readiness.push(ingest.readiness);
    services.push(ingest, createPump(rt, { model, onTerminal: () => backfill.kick(), fence: lock, ...(opts.decide ? { decide: opts.decide } : {}) }), backfill, createJobs(rt));
    // Projectors: flight read models and the outbox feeder (msg_event), woken by msgx_decision.
    services.push(...createProjectionServices(rt).services);
    // Outbox dispatcher (Kafka / NDJSON sink, COUTMSGS) and the plan-request tracker; readiness 'kafka'.
    const delivery = createDeliveryServices(rt, { fence: lock });
    services.push(...delivery.services);
    readiness.push(...delivery.readiness);
    // Consistency sentinel: a sample check on start and daily (read-only snapshot; repairs nothing).
    services.push(createSentinel({ pool: rt.pool, clock: rt.clock, log: rt.log, cfg: rt.cfg }));
  }

  const started: Service[] = [];
  let starting: Service | undefined;
  let stopped = false;
  return {
    httpPort: () => http.port(),
    failure: () => failure,
    async start() {
      for (const s of services) {
        if (stopped) throw new Error('stopped during start-up');
        starting = s;
        try {
          await s.start();
        } finally {
          starting = undefined;
        }
        started.push(s);
      }
    },
    async stop() {
      stopped = true;
      // A service still starting (a standby waiting for the writer lock, a projector folding the
      // log) is told to stop too, so that its start() ends now rather than when it is done.
      const pending = starting;
      if (pending) await pending.stop().catch((err: unknown) => rt.log.error({ err, service: pending.name }, 'stop failed'));
      for (const s of started.reverse()) await s.stop().catch((err: unknown) => rt.log.error({ err, service: s.name }, 'stop failed'));
      started.length = 0;
    },
  };
}
