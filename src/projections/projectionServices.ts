/**
 * The writer's projection services: one LISTEN connection on msgx_decision and the two projector
 * loops, 'flights' (read models) and 'outbox' (msg_event). Both poll every MSGX_POLL_INTERVAL_MS
 * as a fallback and share that interval as the listener's reconnect delay.
 */
import type { Runtime } from '../platform/runtime.ts';
import type { Service } from '../platform/service.ts';
import { createDecisionListener } from './decisionListener.ts';
import { createFlightProjector } from './flightProjector.ts';
import { createOutboxFeeder } from './outboxFeeder.ts';
import type { CoutmsgsRoute } from './outboxRoutes.ts';
import { createProjectorService } from './projectorService.ts';
import { Wakeup } from './wakeup.ts';

export interface ProjectionServicesOptions {
  /** COUTMSGS routes of the outbox feeder (none by default, see docs/projections.md). */
  coutmsgsRoutes?: readonly CoutmsgsRoute[];
}

export function createProjectionServices(rt: Runtime, opts: ProjectionServicesOptions = {}): { services: Service[] } {
  const log = rt.log.child({ role: 'projections' });
  const pollIntervalMs = rt.cfg.pollIntervalMs;
  const flightsWake = new Wakeup();
  const outboxWake = new Wakeup();
  const listener = createDecisionListener({
    pool: rt.pool, wakeups: [flightsWake, outboxWake], clock: rt.clock, log, retryMs: pollIntervalMs,
  });
  const flights = createProjectorService({
    pool: rt.pool, projector: createFlightProjector(), wakeup: flightsWake, clock: rt.clock,
    log: log.child({ projector: 'flights' }), pollIntervalMs,
  });
  const outbox = createProjectorService({
    pool: rt.pool, projector: createOutboxFeeder({ clock: rt.clock, routes: opts.coutmsgsRoutes }), wakeup: outboxWake,
    clock: rt.clock, log: log.child({ projector: 'outbox' }), pollIntervalMs,
  });
  return { services: [listener, flights, outbox] };
}
