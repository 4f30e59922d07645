import { createWriterServices, type WriterServicesOptions } from './writerServices.ts';
import { createHttpServer, type Route } from '../read-api/httpServer.ts';
import { createMetricsRoute } from '../read-api/metrics/metricsRoute.ts';
import { createModeProbe, modeName, readRunMode, type ModeName, type ModeProbe, type RunMode } from '../platform/runMode.ts';
import type { Decider } from '../domain/decide.ts';
import type { Runtime } from '../platform/runtime.ts';
import { ping } from '../platform/db.ts';
import { ServiceSequence, type ReadinessCheck, type Service } from '../platform/service.ts';
import { createWriterLock } from '../write/writerLock.ts';
import { WriteModel } from '../write/pump/writeModel.ts';
import { createModelFollower } from '../write/snapshot/modelFollower.ts';
import { newestImage } from '../write/snapshot/warmModel.ts';
import { FencedCount, type WriterFence } from '../platform/writerFence.ts';
import { cutOver, enterShadow, ShadowRefused } from '../write/shadow/runModeChange.ts';
import { unsafeForShadow } from '../write/shadow/shadowSafety.ts';

export const ROLES = ['all', 'writer', 'api'] as const;
/** A writer that lost its lock exits at the latest this long after noticing (docs/security.md). */
export const LOST_EXIT_MS = 15_000;
export type Role = (typeof ROLES)[number];

export interface App {
  start(): Promise<void>;
  stop(): Promise<void>;
  httpPort(): number;
  /** Why the app stopped itself, if it did (the writer lost its lock, a standby's model was refused): the process must exit non-zero. */
  failure(): Error | undefined;
  /** The run mode as recorded in the database (or forced by --shadow / MSGX_SHADOW). */
  mode(): Promise<ModeName>;
  /** This process took the writer lock (its stop leaves work to the next start). */
  wrote(): boolean;
}

export interface AssembleOptions {
  readonly role: Role;
  readonly standby: boolean;
  /** `msgx start --shadow` (MSGX_SHADOW=true does the same): docs/contract/design.md §11. */
  readonly shadow?: boolean;
  /** Who starts it, for the ShadowStarted / CutOver decisions (user@host). */
  readonly operator?: string;
  /** The pump's handlers (default: the registry's); tests inject another set here. */
  readonly decide?: Decider;
  /** How the pump slices a big head (default its own); tests inject one that holds a turn. */
  readonly bigHeadSlicing?: WriterServicesOptions['bigHeadSlicing'];
}

let readApiModules: Promise<readonly [typeof import('../operations/http/adminRoutes.ts'), typeof import('../read-api/readApi.ts')]> | undefined;

/**
 * The read API's modules (GraphQL and its tree), loaded once. `msgx start` begins loading them
 * while it connects to PostgreSQL — or waits for it after an outage — so that what runs once the
 * database answers is only the start itself (docs/recovery.md "Outages").
 */
export function loadReadApi(): NonNullable<typeof readApiModules> {
  return (readApiModules ??= Promise.all([import('../operations/http/adminRoutes.ts'), import('../read-api/readApi.ts')] as const));
}

/**
 * The composition root: which services run for a role, in start order (stopped in reverse).
 * writer = ingest, pump, projectors, dispatcher, jobs; api = HTTP (GraphQL, compat, health, metrics).
 */
export async function assemble(rt: Runtime, opts: AssembleOptions): Promise<App> {
  const shadow = opts.shadow === true || rt.cfg.shadow.enabled;
  const writerRole = opts.role === 'all' || opts.role === 'writer';
  if (shadow && writerRole) {
    const problems = unsafeForShadow(rt.cfg);
    if (problems.length > 0) throw new ShadowRefused(`cannot start in shadow mode:\n  ${problems.join('\n  ')}`);
  }
  // What /readyz, /metrics, pipeline and the compat entry say: the database's mode, shadow at once when asked for.
  const mode: ModeProbe = createModeProbe(rt.readPool, shadow ? { shadow: true, topicPrefix: rt.cfg.shadow.topicPrefix } : null);
  const readiness: ReadinessCheck[] = [
    { name: 'postgres', check: () => ping(rt.pool) },
    { name: 'mailbox', check: () => rt.mailbox.ping() },
  ];
  const routes: Route[] = [];
  const services: Service[] = [];
  let failure: Error | undefined;
  let lockTaken = false;

  // msgx_writer_fenced_total: counted by the writer lock, shown by this process's /metrics.
  const fencedCount = new FencedCount();
  routes.push(createMetricsRoute(rt, mode, writerRole ? fencedCount : undefined));
  if (opts.role === 'all' || opts.role === 'api') {
    // GraphQL (+ SSE subscriptions), POST /cminmsgs/send; the live-update feed runs as a service.
    // Loaded for these roles only: a writer (role writer) starts without GraphQL's modules.
    const [{ adminRoutes }, { createReadApi }] = await loadReadApi();
    routes.push(...adminRoutes(rt).routes); // /admin/*: operator actions for the console (404 unless MSGX_ADMIN_TOKEN)
    const readApi = createReadApi(rt, { mode });
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
    maxConnectionsPerClient: rt.cfg.httpClients.maxConnectionsPerClient,
    mode: async () => modeName(await mode()),
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
    const lock = createWriterLock({ url: rt.databaseUrl, standby: opts.standby, clock: rt.clock, log: writerLog, onLost, fencedCount });
    // A warm standby (docs/operations.md "Warm standby"): its write model follows the log while it
    // waits for the lock, so that its pump starts from the head, not from a snapshot or position 0.
    const model = new WriteModel({ newestImage });
    // A standby whose model needs archived history stops like a writer's start refuses (startCommand).
    const onRefused = (err: Error) => {
      failure ??= err;
      process.kill(process.pid, 'SIGTERM');
    };
    const follower = opts.standby ? createModelFollower(rt, model, { follow: true, onRefused }) : undefined;
    if (follower) services.push(follower);
    services.push(lock, { name: 'writer-lock-taken', start: async () => void (lockTaken = true), stop: async () => undefined });
    // Everything else of the writer is built once the lock is held: its mode (shadow, cut-over) is
    // decided then, by the one writer, and every service is built for that mode.
    services.push(writerServices(rt, { shadow, operator: opts.operator ?? 'msgx', readiness, decide: opts.decide, bigHeadSlicing: opts.bigHeadSlicing, fence: lock, model, follower }));
  }

  const sequence = new ServiceSequence((err, service) => rt.log.error({ err, service }, 'stop failed'));
  return {
    httpPort: () => http.port(),
    failure: () => failure,
    wrote: () => lockTaken,
    mode: async () => modeName(await mode()),
    start: () => sequence.start(services),
    stop: () => sequence.stop(),
  };
}

/**
 * The writer's services after the lock: record the mode (enter shadow, or cut over a shadow
 * database), then the services of createWriterServices, built for that mode.
 */
function writerServices(
  rt: Runtime,
  opts: {
    shadow: boolean; operator: string; readiness: ReadinessCheck[]; decide: Decider | undefined; fence: WriterFence;
    bigHeadSlicing: WriterServicesOptions['bigHeadSlicing'];
    model: WriteModel; follower: Service | undefined;
  },
): Service {
  const log = rt.log.child({ role: 'writer' });
  const sequence = new ServiceSequence((err, service) => log.error({ err, service }, 'stop failed'));

  async function decideMode(): Promise<RunMode> {
    const now = rt.clock.now();
    if (opts.shadow) {
      const mode = await enterShadow(rt.pool, { topicPrefix: rt.cfg.shadow.topicPrefix, now, requestedBy: opts.operator });
      log.warn(
        { mode: 'shadow', topicPrefix: mode.topicPrefix, since: mode.shadowSince },
        'SHADOW MODE: CMINMSGS is read by its own watermark and never written (no write-back), nothing is inserted into COUTMSGS, Kafka topics are prefixed',
      );
      return mode;
    }
    const co = await cutOver(rt.pool, { now, requestedBy: opts.operator });
    if (co) {
      log.warn(
        { cutoverPosition: co.mode.cutoverPosition, watermark: co.mode.cutoverWatermark, undecided: co.undecided },
        'CUT-OVER: this database leaves shadow mode; decisions up to the cut-over position are never written back or sent to production topics, new ones are',
      );
      if (co.undecided > 0) log.warn({ undecided: co.undecided }, 'cut-over: messages ingested in shadow but not decided yet will be written back when decided');
    }
    return readRunMode(rt.pool);
  }

  function build(mode: RunMode): readonly Service[] {
    const writer = createWriterServices(rt, { mode, fence: opts.fence, decide: opts.decide, bigHeadSlicing: opts.bigHeadSlicing, model: opts.model });
    opts.readiness.push(...writer.readiness);
    return writer.services;
  }

  return {
    name: 'writer',
    async start() {
      // The lock is ours: the standby's model stops following, the pump folds from here on.
      await opts.follower?.stop();
      rt.faults.reached('writer.takeover');
      await sequence.start(build(await decideMode()));
    },
    stop: () => sequence.stop(),
  };
}
