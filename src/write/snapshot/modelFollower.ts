/**
 * The write model before the pump decides against it (docs/operations.md "Warm standby"):
 * `start()` brings it up to the log head from the newest usable snapshot (warmModel). With
 * `follow`, it then keeps it there — woken by msgx_decision, and every MSGX_POLL_INTERVAL_MS
 * without it — until stopped: what a `--standby` does while it waits for the writer lock, so that
 * on taking over its pump folds only the few decisions after its model.
 */
import { outageRetryDelay } from '../../platform/config.ts';
import { Channels } from '../../platform/channels.ts';
import { refuseArchivedAfter } from '../../log/archivedHistory.ts';
import { RefusedError } from '../../platform/errors.ts';
import { createWakingListener } from '../../platform/listen.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { Service } from '../../platform/service.ts';
import { createServiceLoop } from '../../platform/serviceLoop.ts';
import { Wakeup } from '../../platform/wakeup.ts';
import type { WriteModel } from '../pump/writeModel.ts';
import { warmModel } from './warmModel.ts';

export interface ModelFollowerOptions {
  readonly follow: boolean;
  /**
   * A standby's model cannot be brought up without archived history, found by its background fold
   * after start — no usable snapshot after `msgx archive` (its warm-up failed at start for another
   * reason), or decisions after its position archived while it lagged behind: the process must
   * stop and name the restores (docs/recovery.md "Archived history"). A refusal at start rejects
   * start() instead.
   */
  readonly onRefused?: (err: RefusedError) => void;
}

export function createModelFollower(rt: Runtime, model: WriteModel, opts: ModelFollowerOptions): Service {
  const log = rt.log.child({ role: opts.follow ? 'standby' : 'writer' });
  const wakeup = new Wakeup();
  const listener = createWakingListener(wakeup, {
    name: 'standby-model',
    source: { url: rt.databaseUrl },
    channels: [Channels.decision],
    meanwhile: 'the standby folds the log every MSGX_POLL_INTERVAL_MS until it is back',
    clock: rt.clock,
    log,
  });
  const loop = createServiceLoop({
    clock: rt.clock,
    log,
    failedMsg: 'standby cannot fold the log; retrying with backoff',
    resumedMsg: 'standby folds the log again',
    wakeup,
    async step() {
      // Not brought up yet (its start failed): from the newest snapshot, never a fold from 0 over archived months.
      if (!warmed) await warm().catch((err: unknown) => refused(err));
      else await model.catchUp(rt.pool).catch((err: unknown) => gap(err));
      return rt.cfg.pollIntervalMs;
    },
    retryMs: (failures) => outageRetryDelay(rt.cfg, failures),
  });
  let following = false;
  let warmed = false;
  const warm = async (): Promise<void> => {
    await warmModel(rt.pool, model, log, () => rt.clock.now().getTime());
    warmed = true;
  };
  /**
   * The fold of a warm model failed (a hole after its position, a lost connection): when decisions
   * after its position are archived meanwhile (`msgx archive` while it lagged behind), it never
   * can catch up — refuse, naming the restores; else rethrow (the loop retries with backoff).
   */
  const gap = async (err: unknown): Promise<never> => {
    const at = model.position;
    await refuseArchivedAfter(rt.pool, at, `the standby's write model (following the log at position ${at})`).catch((e: unknown) => refused(e));
    throw err;
  };
  /** Rethrows; a refusal is also handed to onRefused (once), which stops the process. */
  let gaveUp = false;
  const refused = (err: unknown): never => {
    if (err instanceof RefusedError && !gaveUp) {
      gaveUp = true;
      log.fatal({ err }, 'standby: the write model cannot be brought up without archived history; stopping');
      opts.onRefused?.(err);
    }
    throw err;
  };

  const idle = new AbortController();
  let decoding: Promise<void> = Promise.resolve();

  return {
    name: opts.follow ? 'standby-model' : 'write-model',
    async start() {
      if (!opts.follow) {
        await warm();
        return;
      }
      // A standby waits for the lock whatever happens here — its loop folds on after a failure —
      // except when history it needs is archived (no usable snapshot past it): like a writer's
      // start, it refuses, naming the restore commands (docs/recovery.md "Archived history").
      await warm().catch((err: unknown) => {
        if (err instanceof RefusedError) throw err;
        log.warn({ err }, 'standby: write model not caught up yet; folding on in the background');
      });
      following = true;
      await listener.start();
      loop.start();
      log.info({ position: model.position }, 'standby: write model follows the log while waiting for the writer lock');
      // While it waits, it decodes the snapshot's days, so a takeover's first decisions do not pay for them.
      const t0 = rt.clock.now().getTime();
      decoding = model.decodeDays(idle.signal).then(
        (days) => {
          if (!idle.signal.aborted) log.info({ days, flights: model.flights.size, ms: rt.clock.now().getTime() - t0 }, 'standby: snapshot flights decoded');
        },
        (err: unknown) => log.warn({ err }, 'standby: snapshot flights not decoded ahead; each day is decoded when first read'),
      );
    },
    async stop() {
      if (!following) return;
      following = false;
      idle.abort();
      await decoding;
      await loop.stop();
      await listener.stop();
    },
  };
}
