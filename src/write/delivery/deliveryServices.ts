import { PRODUCTION_MODE, type RunMode } from '../../platform/runMode.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { ReadinessCheck, Service } from '../../platform/service.ts';
import type { WriterFence } from '../../platform/writerFence.ts';
import { createRequestTracker } from '../requests/requestTracker.ts';
import { createKafkaSink } from './createKafkaSink.ts';
import { createDispatcher } from './dispatcher.ts';
import { shadowTopics } from './shadowTopics.ts';

/**
 * The writer's delivery side: the outbox dispatcher (Kafka or the local NDJSON sink, COUTMSGS) and
 * the plan-request tracker, plus the 'kafka' readiness check (broker metadata reachable; the file
 * sink is always ready). Throws ProducerSafetyError when the producer would be weakened.
 */
export function createDeliveryServices(
  rt: Runtime,
  opts: { mode?: RunMode; fence?: WriterFence; gate?: () => Promise<void> } = {},
): { services: Service[]; readiness: ReadinessCheck[] } {
  const log = rt.log.child({ role: 'delivery' });
  const mode = opts.mode ?? PRODUCTION_MODE;
  // Records of shadow decisions go to the shadow's prefixed topics, also after a cut-over (shadowTopics.ts).
  const sink = shadowTopics(createKafkaSink(rt.cfg, log), mode);
  if (mode.shadow) {
    log.warn(
      { topics: [rt.cfg.kafka.topicMsg, rt.cfg.kafka.topicSchd, ...(rt.cfg.aidxOut ? [rt.cfg.kafka.topicAidx] : [])].map((t) => `${mode.topicPrefix}${t}`) },
      'shadow mode: Kafka records go only to the prefixed topics; COUTMSGS is not written (no COUTMSGS delivery, plan requests recorded, not sent)',
    );
  }
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
    faults: rt.faults,
    ...(opts.gate ? { gate: opts.gate } : {}),
    // In shadow mode nothing is inserted into COUTMSGS: its target does not run at all.
    ...(mode.shadow ? { targets: ['KAFKA_MSG', 'KAFKA_SCHD', 'AIDX'] as const } : {}),
  });
  const tracker = createRequestTracker({
    pool: rt.pool,
    databaseUrl: rt.databaseUrl,
    mailbox: rt.mailbox,
    clock: rt.clock,
    cfg: rt.cfg,
    log: rt.log.child({ role: 'requests' }),
    dailyAt: rt.cfg.requestPlanDailyAt,
    referenceAtStart: rt.cfg.requestReferenceAtStart,
    shadow: mode.shadow,
  });
  return { services: [dispatcher, tracker], readiness: [{ name: 'kafka', check: () => sink.check() }] };
}
