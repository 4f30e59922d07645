import type pg from 'pg';
import type { Clock } from '../../platform/clock.ts';
import type { Config } from '../../platform/config.ts';
import type { Faults } from '../../platform/faults.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Mailbox } from '../../platform/mailbox/port.ts';
import type { Service } from '../../platform/service.ts';
import type { WriterFence } from '../../platform/writerFence.ts';
import { createCoutmsgsWorker } from './coutmsgsWorker.ts';
import type { DeliveryContext, TargetWorker } from './deliverRows.ts';
import type { KafkaSink } from './kafkaSink.ts';
import { createListener, type Listener } from '../../platform/listen.ts';
import { Wakeup } from '../../platform/wakeup.ts';
import { createMsgWorker } from './msgWorker.ts';
import { aidxRecord } from './aidxRecord.ts';
import { createSchdWorker } from './schdWorker.ts';
import { isTarget, TARGETS, type Target } from './targets.ts';
import { runTargetLoop } from './targetLoop.ts';
import { foregroundWorker } from './targetPriority.ts';
import { createForeground } from '../../platform/slicing.ts';
import { Channels } from '../../platform/channels.ts';

export interface DispatcherDeps {
  readonly pool: pg.Pool;
  /** For the LISTEN connection. */
  readonly databaseUrl: string;
  readonly mailbox: Mailbox;
  /** Owned by the dispatcher from here on: closed by stop(). */
  readonly sink: KafkaSink;
  readonly clock: Clock;
  readonly cfg: Config;
  readonly log: Logger;
  /** Safety poll with nothing to do (a lost notification is picked up after this). Default 5000. */
  readonly idlePollMs?: number;
  /** Most KAFKA_MSG rows per producer call. Default 200. */
  readonly msgBatchMax?: number;
  /** The writer lock: deliveries are claimed with its epoch (docs/security.md). Absent: unfenced. */
  readonly fence?: WriterFence;
  readonly claimGraceMs?: number;
  /** The targets to drain (default all; shadow mode leaves out COUTMSGS). */
  readonly targets?: readonly Target[];
  /** The fault port at the delivery crash points (default none). */
  readonly faults?: Faults;
  /** Awaited before each delivery step (src/platform/slicing.ts Foreground: the pump's big head first). */
  readonly gate?: () => Promise<void>;
}

export interface Dispatcher extends Service {
  /** Look at a target's head now (as a notification on msgx_outbox does). */
  wake(target?: Target): void;
}

/**
 * The outbox dispatcher: one loop per target (KAFKA_MSG, KAFKA_SCHD, COUTMSGS, AIDX), each strictly
 * FIFO by event_id, so a head waiting for its backoff blocks its own target only. Loops wake on
 * LISTEN msgx_outbox (payload: target), when their head falls due, and on an idle poll.
 */
export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const log = deps.log;
  const ctx: DeliveryContext = { pool: deps.pool, clock: deps.clock, cfg: deps.cfg, log, fence: deps.fence, claimGraceMs: deps.claimGraceMs, faults: deps.faults };
  // The schd loop first (docs/delivery.md "Which target first"): the msg and AIDX loops' steps wait while schd batches go out.
  const schdFirst = createForeground();
  const behindSchd = new Set<Target>(['KAFKA_MSG', 'AIDX']);
  const workers: Record<Target, TargetWorker> = {
    KAFKA_MSG: createMsgWorker(ctx, deps.sink, { topic: deps.cfg.kafka.topicMsg, batchMax: deps.msgBatchMax ?? 200 }),
    KAFKA_SCHD: foregroundWorker(createSchdWorker(ctx, deps.sink, {
      topic: deps.cfg.kafka.topicSchd,
      flushMs: deps.cfg.schdFlushMs,
      flushLimit: deps.cfg.schdFlushLimit,
    }), schdFirst),
    COUTMSGS: createCoutmsgsWorker(ctx, deps.mailbox, deps.cfg.coutmsgsRoutingId),
    // AIDX: KAFKA_MSG's rules (one record per row, strict event_id order), its own topic (docs/delivery.md "AIDX").
    AIDX: createMsgWorker(ctx, deps.sink, { topic: deps.cfg.kafka.topicAidx, batchMax: deps.msgBatchMax ?? 200, target: 'AIDX', record: aidxRecord }),
  };
  const wakeups: Record<Target, Wakeup> = { KAFKA_MSG: new Wakeup(), KAFKA_SCHD: new Wakeup(), COUTMSGS: new Wakeup(), AIDX: new Wakeup() };
  const wake = (target?: Target): void => (target ? wakeups[target].notify() : TARGETS.forEach((t) => wakeups[t].notify()));

  const stop = new AbortController();
  const listener: Listener = createListener({
    name: 'dispatcher',
    source: { url: deps.databaseUrl },
    channels: [Channels.outbox],
    // The payload names the target; anything else (or a reconnect, which may have missed some) wakes all.
    onNotify: (_channel, payload) => wake(isTarget(payload) ? payload : undefined),
    onListening: () => wake(),
    meanwhile: 'the targets look at their heads every idle poll until it is back',
    clock: deps.clock,
    log,
  });
  let loops: Promise<void>[] = [];
  let stopped: Promise<void> | null = null;

  return {
    name: 'dispatcher',
    wake,
    async start() {
      await listener.start();
      log.info({ kafka: deps.sink.description, routingId: deps.cfg.coutmsgsRoutingId }, 'dispatcher started');
      loops = (deps.targets ?? TARGETS).map((t) =>
        runTargetLoop(workers[t], wakeups[t], stop.signal, {
          clock: deps.clock,
          log: log.child({ target: t }),
          idlePollMs: deps.idlePollMs ?? 5000,
          errorPauseMs: 1000,
          ...(behindSchd.has(t)
            ? { gate: async () => { await deps.gate?.(); await schdFirst.idle(); } }
            : deps.gate ? { gate: deps.gate } : {}),
        }),
      );
    },
    stop() {
      stopped ??= (async () => {
        stop.abort();
        await Promise.allSettled(loops);
        await listener.stop();
        await deps.sink.close();
      })();
      return stopped;
    },
  };
}
