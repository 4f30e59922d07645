/**
 * The writer's projection services: one LISTEN connection on msgx_decision and the two projector
 * loops, 'flights' (read models) and 'outbox' (msg_event). Both poll every MSGX_POLL_INTERVAL_MS
 * as a fallback and share that interval as the listener's reconnect delay. With MSGX_ESDB_URL set,
 * a third projector forwards the log to EventStoreDB/KurrentDB (src/projections/esdb).
 */
import type { Runtime } from '../platform/runtime.ts';
import type { ReadinessCheck, Service } from '../platform/service.ts';
import { createDecisionListener } from './decisionListener.ts';
import type { Projector } from './projector.ts';
import { ESDB_PROJECTOR } from './esdb/streamNames.ts';
import { createFlightProjector } from './flightProjector.ts';
import { createOutboxFeeder, type OutboxFeederOptions, type SharedFold } from './outboxFeeder.ts';
import type { CoutmsgsRoute } from './outboxRoutes.ts';
import { createProjectorLoop } from './projectorLoop.ts';
import { createReferenceProjector } from './reference/referenceProjector.ts';
import { createSharedReads, type SharedReads } from './sharedReads.ts';
import { Wakeup } from '../platform/wakeup.ts';
import type { Logger } from '../platform/logger.ts';
import type { Config } from '../platform/config.ts';
import { aidxRules, type AidxRules, type AidxSkipReason } from '../domain/aidxOut/aidxMessage.ts';
import { backgroundSlicing, createForeground, DEFAULT_SLICING, SLICED_FROM_CHANGES, type Foreground, type Slicing } from '../platform/slicing.ts';
import type { DecisionEvent } from '../log/readDecisions.ts';

export interface ProjectionServicesOptions {
  /** COUTMSGS routes of the outbox feeder (none by default, see docs/projections.md). */
  coutmsgsRoutes?: readonly CoutmsgsRoute[];
  /** The pump's write model, whose flight states the outbox feeder shares (outboxFeeder.ts) and the flight projector takes where they are as of a decision it writes (flightProjector.ts). */
  sharedFold?: SharedFold;
  /** The newest write-model snapshot at or before a position, for the outbox feeder's refold (outboxFeeder.ts). */
  snapshot?: OutboxFeederOptions['snapshot'];
  /** How the flight projector and the outbox feeder slice a big decision (default DEFAULT_SLICING, or `foreground`'s; a test injects its own). */
  slicing?: { readonly flights?: Slicing; readonly outbox?: Slicing };
  /** The writer's pump's big heads, which every projector's batches and slices give way to (src/platform/slicing.ts). */
  foreground?: Foreground;
  /** The projectors' shared reads (default: their own); the writer passes the ones its pump offers its commits to. */
  reads?: SharedReads;
}

export function createProjectionServices(rt: Runtime, opts: ProjectionServicesOptions = {}): { services: Service[]; readiness: ReadinessCheck[] } {
  const log = rt.log.child({ role: 'projections' });
  const pollIntervalMs = rt.cfg.pollIntervalMs;
  // Each projector's checkpoint is watched like the pump's FIFO head (docs/operations.md "Stalled heads").
  const stallReadyMs = rt.cfg.headStallReadyMs;
  const flightsWake = new Wakeup();
  const outboxWake = new Wakeup();
  const esdbWake = new Wakeup();
  const referenceWake = new Wakeup();
  // One read of each decision for the three projectors below (sharedReads.ts).
  const reads = opts.reads ?? createSharedReads();
  const fg = opts.foreground;
  const slicing = fg ? backgroundSlicing(fg) : DEFAULT_SLICING;
  const gate = fg ? { gate: () => fg.idle() } : {};
  const listener = createDecisionListener({
    pool: rt.pool, wakeups: [flightsWake, outboxWake, esdbWake, referenceWake], clock: rt.clock, log,
  });
  // A big decision's flights before its outbox rows (docs/projections.md "Big decisions"): the feeder's
  // slices give way to the flight projector's batch, at most FOREGROUND_MAX_WAIT_MS each time.
  const flightsFirst = createForeground();
  const outboxSlicing = opts.slicing?.outbox ?? slicing;
  const flights = createProjectorLoop({
    pool: rt.pool, projector: first(createFlightProjector(undefined, opts.slicing?.flights ?? slicing, opts.sharedFold), flightsFirst), wakeup: flightsWake, clock: rt.clock,
    log: log.child({ projector: 'flights' }), pollIntervalMs, faults: rt.faults, stallReadyMs, read: reads.reader('flights'), ...gate,
  });
  const outbox = createProjectorLoop({
    pool: rt.pool, projector: createOutboxFeeder({
      clock: rt.clock, tz: rt.cfg.airportTz, routes: opts.coutmsgsRoutes, ...(opts.sharedFold ? { shared: opts.sharedFold } : {}),
      ...(opts.snapshot ? { snapshot: opts.snapshot } : {}),
      slicing: { every: outboxSlicing.every, turn: () => outboxSlicing.turn().then(() => flightsFirst.idle()) },
      ...aidxFeed(rt.cfg, log.child({ projector: 'outbox', target: 'AIDX' })),
    }), wakeup: outboxWake,
    clock: rt.clock, log: log.child({ projector: 'outbox' }), pollIntervalMs, faults: rt.faults, stallReadyMs, read: reads.reader('outbox'), ...gate,
  });
  // Reference data and seasonal schedules (src/projections/reference).
  const reference = createProjectorLoop({
    pool: rt.pool, projector: createReferenceProjector(), wakeup: referenceWake, clock: rt.clock,
    log: log.child({ projector: 'reference' }), pollIntervalMs, faults: rt.faults, stallReadyMs, read: reads.reader('reference'), ...gate,
  });
  const services: Service[] = [listener, flights, outbox, reference];
  const readiness: ReadinessCheck[] = [flights.readiness, outbox.readiness, reference.readiness];
  if (rt.cfg.esdbUrl) {
    const esdb = esdbServices(rt, rt.cfg.esdbUrl, esdbWake);
    services.push(...esdb.services);
    readiness.push(esdb.readiness);
  }
  return { services, readiness };
}

/** `projector`, whose batches holding a big decision (SLICED_FROM_CHANGES changes or more) are foreground work of `fg`. */
function first(projector: Projector, fg: Foreground): Projector {
  const big = (events: readonly DecisionEvent[]): boolean => events.some((e) => (e.changes?.length ?? 0) >= SLICED_FROM_CHANGES);
  return {
    ...projector,
    async apply(client, events, from) {
      const end = big(events) ? fg.enter() : undefined;
      try {
        await projector.apply(client, events, from);
      } finally {
        end?.();
      }
    },
  };
}

/**
 * The EventStoreDB forwarder: a projector like the others, its client closed after its loop. The
 * client's modules (~200 files with gRPC) are loaded when its service starts, not while `msgx
 * start` loads (docs/scaling.md "Restart, takeover and stop").
 */
function esdbServices(rt: Runtime, url: string, wakeup: Wakeup): { services: Service[]; readiness: ReadinessCheck } {
  const log = rt.log.child({ role: 'projections', projector: ESDB_PROJECTOR });
  let forwarder: { projector: Projector; dispose(): Promise<void> } | undefined;
  const loaded = (): Projector => {
    if (!forwarder) throw new Error('the EventStoreDB forwarder is used before its client started');
    return forwarder.projector;
  };
  const projector: Projector = {
    name: ESDB_PROJECTOR,
    apply: (client, events, from) => loaded().apply(client, events, from),
    committed: () => forwarder?.projector.committed?.(),
    rolledBack: () => forwarder?.projector.rolledBack?.(),
  };
  const loop = createProjectorLoop({
    pool: rt.pool, projector, wakeup, clock: rt.clock, log, pollIntervalMs: rt.cfg.pollIntervalMs, faults: rt.faults,
    stallReadyMs: rt.cfg.headStallReadyMs,
  });
  const services: Service[] = [
    {
      name: 'esdb-client',
      async start() {
        const [{ EventStoreDBClient }, { createEsdbForwarder }] = await Promise.all([import('@eventstore/db-client'), import('./esdb/esdbForwarder.ts')]);
        const client = EventStoreDBClient.connectionString(url);
        forwarder = { projector: createEsdbForwarder(client, log, { maxAppendBytes: rt.cfg.esdbMaxAppendBytes }), dispose: () => client.dispose() };
        log.info('forwarding the decision log to EventStoreDB/KurrentDB');
      },
      stop: async () => forwarder?.dispose(),
    },
    loop,
  ];
  return { services, readiness: loop.readiness };
}

/**
 * The feeder's AIDX options: the rules and a skip counter that logs the 1st, 10th, 100th… flight
 * skipped for each reason (a count per reason, never a line per flight).
 */
function aidxFeed(cfg: Config, log: Logger): { aidx?: AidxRules; onAidxSkip?: (flid: string, reason: AidxSkipReason) => void } {
  const aidx = aidxRules(cfg);
  if (!aidx) return {};
  const skipped = new Map<AidxSkipReason, number>();
  return {
    aidx,
    onAidxSkip(flid, reason) {
      const n = (skipped.get(reason) ?? 0) + 1;
      skipped.set(reason, n);
      if (Number.isInteger(Math.log10(n))) log.warn({ flid, reason, skipped: n }, 'AIDX: flight without an identifiable leg gets no AIDX message');
    },
  };
}
