/**
 * The writer's snapshots of its write model (docs/recovery.md "Write-model snapshots"): one every
 * MSGX_SNAPSHOT_EVERY decisions and one whenever the latest operation day moves, each written
 * while the pump carries on. Taking one is a shallow copy of the flight map between two groups
 * (WriteModel.capture); the JSON, gzip and INSERT come after, off the pump's path, one at a time
 * (when one is written, the model is looked at again at once).
 *
 * A snapshot that cannot be written is a warning, not an outage: the log is the truth, and the
 * next start folds a little more.
 */
import type { Runtime } from '../../platform/runtime.ts';
import type { Service } from '../../platform/service.ts';
import type { WriteModel } from '../pump/writeModel.ts';
import { foldFingerprint } from './foldFingerprint.ts';
import { saveSnapshot } from './saveSnapshot.ts';
import { encodeImage, type ModelImage } from './snapshotCodec.ts';

export interface SnapshotWriter extends Service {
  /** Resolves when no snapshot is being written (tests, the bench). */
  idle(): Promise<void>;
}

export interface SnapshotWriterOptions {
  /**
   * Awaited between taking a snapshot and encoding it, with the snapshot's position: the writer
   * waits until its projectors have passed it (sharedReads.ts `passed`, bounded) and the outbox has
   * delivered it (outboxSettled.ts, bounded), so a plan's snapshot is encoded after the plan is
   * projected and sent, not while (docs/recovery.md "Write-model snapshots"). `signal` aborts at
   * stop. Absent: encoded at once. Never rejects.
   */
  readonly settle?: (position: string, signal: AbortSignal) => Promise<void>;
}

export function createSnapshotWriter(rt: Runtime, model: WriteModel, opts: SnapshotWriterOptions = {}): SnapshotWriter {
  const log = rt.log.child({ role: 'snapshot' });
  const every = BigInt(rt.cfg.snapshot.every);
  const fingerprint = foldFingerprint();
  let last = { position: 0n, latestDay: null as string | null };
  let writing: Promise<void> | undefined;
  let unwatch: (() => void) | undefined;
  let stopped = false;
  const stopCtl = new AbortController();
  /** Resolves at stop: a snapshot waiting to settle is then given up at once. */
  const stoppedSignal = new Promise<void>((resolve) => {
    stopCtl.signal.addEventListener('abort', () => resolve(), { once: true });
  });

  function due(): boolean {
    const position = BigInt(model.position);
    if (position <= last.position) return false;
    return position - last.position >= every || model.latestDay !== last.latestDay;
  }

  async function write(image: ModelImage): Promise<void> {
    if (opts.settle) await Promise.race([opts.settle(image.position, stopCtl.signal), stoppedSignal]);
    if (stopped) return;
    const t0 = performance.now();
    try {
      const body = await encodeImage(image, () => stopped);
      const writeMs = performance.now() - t0;
      if (stopped) return;
      await saveSnapshot(rt.pool, { position: image.position, fingerprint, latestDay: image.latestDay, flights: image.flights.size, body, writeMs }, (p) => rt.faults.reached(p));
      log.info({ position: image.position, flights: image.flights.size, bytes: body.length, encodeMs: Math.round(writeMs), totalMs: Math.round(performance.now() - t0) }, 'write-model snapshot recorded');
    } catch (err) {
      if (!stopped) log.warn({ err, position: image.position }, 'write-model snapshot not recorded; the next one is tried at the next interval');
    }
  }

  function check(): void {
    if (writing !== undefined || stopped || !due()) return;
    const image = model.capture();
    last = { position: BigInt(image.position), latestDay: image.latestDay };
    writing = write(image).finally(() => {
      writing = undefined;
      check(); // the model may have moved past the next interval meanwhile
    });
  }

  return {
    name: 'snapshot',
    async start() {
      const { rows } = await rt.pool.query<{ position: string; latest_day: string | null }>(
        'SELECT position, latest_day FROM write_model_snapshot WHERE fingerprint = $1 ORDER BY position DESC LIMIT 1',
        [fingerprint],
      );
      if (rows[0]) last = { position: BigInt(rows[0].position), latestDay: rows[0].latest_day };
      unwatch = model.watch(check);
      check();
    },
    async stop() {
      stopped = true;
      stopCtl.abort();
      unwatch?.();
      await writing; // a snapshot being encoded ends at its next slice (stopped) or its INSERT
    },
    idle: async () => {
      while (writing !== undefined) await writing;
    },
  };
}
