import type { Runtime } from '../../platform/runtime.ts';
import type { ReadinessCheck, Service } from '../../platform/service.ts';
import type { WriterFence } from '../../platform/writerFence.ts';
import { createRequestTracker } from '../requests/requestTracker.ts';
import { createKafkaSink } from './createKafkaSink.ts';
import { createDispatcher } from './dispatcher.ts';

/**
 * The writer's delivery side: the outbox dispatcher (Kafka or the local NDJSON sink, COUTMSGS) and
 * the plan-request tracker, plus the 'kafka' readiness check (broker metadata reachable; the file
 * sink is always ready). Throws ProducerSafetyError when the producer would be weakened.
 */
export function createDeliveryServices(
  rt: Runtime,
  opts: { fence?: WriterFence } = {},
): { services: Service[]; readiness: ReadinessCheck[] } {
  const log = rt.log.child({ role: 'delivery' });
  const sink = createKafkaSink(rt.cfg, log);
  const dispatcher = createDispatcher({
    pool: rt.pool,
    databaseUrl: rt.databaseUrl,
    mailbox: rt.mailbox,
    sink,
    clock: rt.clock,
    cfg: rt.cfg,
    log,
    idlePollMs: Math.max(rt.cfg.pollIntervalMs, 5000),
    fence: opts.fence,
  });
  const tracker = createRequestTracker({
    pool: rt.pool,
    databaseUrl: rt.databaseUrl,
    mailbox: rt.mailbox,
    clock: rt.clock,
    cfg: rt.cfg,
    log: rt.log.child({ role: 'requests' }),
    dailyAt: rt.cfg.requestPlanDailyAt,
  });
  return { services: [dispatcher, tracker], readiness: [{ name: 'kafka', check: () => sink.check() }] };
}
