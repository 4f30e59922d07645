/**
 * The writer's services for a run mode, wired once: `msgx start` (assemble.ts, after the writer
 * lock is held and the mode decided) and the write test harness (test/write/support/writeHarness.ts)
 * build them here, so the tests run the writer as production wires it. In the composition root
 * because it joins roles (write, projections, consistency) that do not import each other.
 *
 * In shadow mode the services see a mailbox that refuses every write (shadowMailbox), the pump
 * records no write-back, the backfill does not run, COUTMSGS is not delivered and Kafka topics are
 * prefixed.
 */
import { createSharedReads } from '../projections/sharedReads.ts';
import { appendedEvents, offerable } from '../log/appendedEvents.ts';
import { createSentinel } from '../consistency/sentinel.ts';
import type { Decider } from '../domain/decide.ts';
import { shadowMailbox } from '../platform/mailbox/shadowMailbox.ts';
import { PRODUCTION_MODE, type RunMode } from '../platform/runMode.ts';
import type { Runtime } from '../platform/runtime.ts';
import type { ReadinessCheck, Service } from '../platform/service.ts';
import type { WriterFence } from '../platform/writerFence.ts';
import { createProjectionServices } from '../projections/projectionServices.ts';
import { createForeground, type Foreground } from '../platform/slicing.ts';
import { createBackfill, type Backfill } from '../write/backfill/backfillService.ts';
import { createDeliveryServices } from '../write/delivery/deliveryServices.ts';
import { createIngest, type Ingest } from '../write/ingest/ingestService.ts';
import { createJobs } from '../write/jobs/jobsService.ts';
import { createPump, type Pump, type PumpOptions } from '../write/pump/pumpService.ts';
import { WriteModel } from '../write/pump/writeModel.ts';
import { checkSnapshot } from '../write/snapshot/checkSnapshot.ts';
import { createModelFollower } from '../write/snapshot/modelFollower.ts';
import { createSnapshotWriter, type SnapshotWriter } from '../write/snapshot/snapshotWriter.ts';
import { newestImage } from '../write/snapshot/warmModel.ts';
import { outboxSettled } from '../write/snapshot/outboxSettled.ts';

export interface WriterServicesOptions {
  /** Default PRODUCTION_MODE. */
  readonly mode?: RunMode;
  /** The writer lock: decisions and deliveries are fenced by it (absent: unfenced, tests). */
  readonly fence?: WriterFence;
  /** The pump's handlers (default: the registry's); tests inject another set here. */
  readonly decide?: Decider;
  /** How the pump slices a big head (default the pump's BIG_HEAD_SLICING); tests inject one that holds a turn. */
  readonly bigHeadSlicing?: PumpOptions['slicing'];
  /** What the projectors and the dispatcher give way to while the pump works on a big head (default a new one: src/platform/slicing.ts). */
  readonly foreground?: Foreground;
  /**
   * 'all' (default): everything `msgx start` runs. 'core': ingest, pump and backfill only — the
   * write test harness, which drives the rest itself.
   */
  readonly parts?: 'all' | 'core';
  /** The write model (default: a new one); a warm standby passes the one it kept caught up while it waited. */
  readonly model?: WriteModel;
}

export interface WriterServices {
  readonly model: WriteModel;
  readonly ingest: Ingest;
  readonly pump: Pump;
  readonly backfill: Backfill;
  readonly snapshots: SnapshotWriter;
  /** In start order (stopped in reverse): write model → ingest → pump → snapshots → backfill → jobs → projectors → delivery → sentinel. */
  readonly services: readonly Service[];
  /** The readiness checks of these services (ingest, pump, and with 'all' each projector and 'kafka'). */
  readonly readiness: readonly ReadinessCheck[];
}

/** How long a write-model snapshot waits at most for the projectors to pass its position (snapshotWriter.ts `settle`). */
export const SNAPSHOT_SETTLE_MAX_MS = 10_000;
/**
 * How long it then waits at most for the outbox's Kafka rows of its position to be sent. Short: a
 * delivery that is stuck (an outage, a backoff, rows claimed by a writer that was killed) must not
 * hold the snapshot back for long — with 10 s here, a crash run of short lives wrote none.
 */
export const SNAPSHOT_OUTBOX_MAX_MS = 2_000;

export function createWriterServices(rt: Runtime, opts: WriterServicesOptions = {}): WriterServices {
  const mode = opts.mode ?? PRODUCTION_MODE;
  const wrt: Runtime = mode.shadow ? { ...rt, mailbox: shadowMailbox(rt.mailbox) } : rt;
  const model = opts.model ?? new WriteModel({ newestImage });
  const backfill = createBackfill(wrt);
  // The projectors' one read of each decision; the pump hands them what it commits (sharedReads.ts).
  const reads = createSharedReads();
  // While the pump works on a big head, the projectors' slices give way (docs/projections.md "Big decisions").
  const foreground = opts.foreground ?? createForeground();
  const pump = createPump(wrt, {
    foreground,
    model,
    onTerminal: mode.shadow ? undefined : () => backfill.kick(),
    writeBack: !mode.shadow,
    fence: opts.fence,
    ...(opts.decide ? { decide: opts.decide } : {}),
    ...(opts.parts === 'core' ? {} : {
      onCommitted: (appended) => {
        if (offerable(appended) && reads.wants(appended.rows[0]?.position)) reads.offer(appendedEvents(appended));
      },
    }),
    ...(opts.bigHeadSlicing ? { slicing: opts.bigHeadSlicing } : {}),
  });
  const ingest = createIngest(wrt);
  // A snapshot is encoded once the projectors have passed it (at most SNAPSHOT_SETTLE_MAX_MS) and the
  // outbox has sent it (at most SNAPSHOT_OUTBOX_MAX_MS): not beside a plan's projection or delivery.
  const snapshots = createSnapshotWriter(wrt, model, opts.parts === 'core' ? {} : {
    settle: async (position, signal) => {
      await reads.passed(position, SNAPSHOT_SETTLE_MAX_MS);
      await outboxSettled(wrt.pool, position, SNAPSHOT_OUTBOX_MAX_MS, signal);
    },
  });
  // The write model from its newest snapshot first (docs/recovery.md "Write-model snapshots"). No
  // write-back in shadow mode: nothing is registered for it, and the scanner does not run.
  const core: Service[] = [createModelFollower(wrt, model, { follow: false }), ingest, pump, snapshots, ...(mode.shadow ? [] : [backfill])];
  if (opts.parts === 'core') return { model, ingest, pump, backfill, snapshots, services: core, readiness: [ingest.readiness, pump.readiness] };
  const delivery = createDeliveryServices(wrt, { mode, fence: opts.fence, gate: () => foreground.idle() });
  const projections = createProjectionServices(wrt, { sharedFold: model, snapshot: newestImage, reads, foreground });
  // What waited at the start is decided: asked for once, by the first of the housekeeping job and
  // the sentinel's start check (both wait for it; docs/operations.md "Jobs", "Sentinel").
  let startSettled: Promise<void> | undefined;
  const settled = (): Promise<void> => (startSettled ??= startBacklogDecided(ingest, pump));
  const services: Service[] = [
    ...core,
    createJobs(wrt, { settled }),
    // Projectors: flight read models and the outbox feeder (msg_event), woken by msgx_decision.
    // The outbox feeder shares the pump's fold of the flights (one copy in memory, not two).
    ...projections.services,
    // Outbox dispatcher (Kafka / NDJSON sink, COUTMSGS) and the plan-request tracker; readiness 'kafka'.
    ...delivery.services,
    // Consistency sentinel: a sample check on start (once what waited at the start is decided) and
    // daily (read-only snapshot; repairs nothing).
    createSentinel({ pool: wrt.pool, clock: wrt.clock, log: wrt.log, cfg: wrt.cfg, snapshot: checkSnapshot, settled }),
  ];
  return { model, ingest, pump, backfill, snapshots, services, readiness: [ingest.readiness, pump.readiness, ...projections.readiness, ...delivery.readiness] };
}

/** Polls the start check asks the ingest for at most while each finds a full batch waiting. */
const START_POLLS = 100;

/**
 * What waited at the start is decided (the sentinel's start check waits for this, docs/operations.md
 * "Sentinel"): the ingest polls until a poll is not full — it copies what arrived before the start,
 * e.g. a message sent while a standby took over, which the pump's first scan may run before — and
 * then the pump drains. A poll that fails (the mailbox is down) does not hold the check back.
 */
export async function startBacklogDecided(ingest: Pick<Ingest, 'pollOnce'>, pump: { drained(): Promise<void> }): Promise<void> {
  for (let i = 0; i < START_POLLS; i++) {
    const polled = await ingest.pollOnce().catch(() => undefined);
    if (!polled?.more) break;
  }
  await pump.drained();
}
