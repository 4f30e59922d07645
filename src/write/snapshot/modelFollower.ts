/**
 * The write model before the pump decides against it (docs/operations.md "Warm standby"):
 * `start()` brings it up to the log head from the newest usable snapshot (warmModel). With
 * `follow`, it then keeps it there — woken by msgx_decision, and every MSGX_POLL_INTERVAL_MS
 * without it — until stopped: what a `--standby` does while it waits for the writer lock, so that
 * on taking over its pump folds only the few decisions after its model.
 */
import { outageRetryDelay } from '../../platform/config.ts';
import { Channels } from '../../platform/channels.ts';
import { createWakingListener } from '../../platform/listen.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { Service } from '../../platform/service.ts';
import { createServiceLoop } from '../../platform/serviceLoop.ts';
import { Wakeup } from '../../platform/wakeup.ts';
import type { WriteModel } from '../pump/writeModel.ts';
import { warmModel } from './warmModel.ts';

export function createModelFollower(rt: Runtime, model: WriteModel, opts: { readonly follow: boolean }): Service {
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
      await model.catchUp(rt.pool);
      return rt.cfg.pollIntervalMs;
    },
    retryMs: (failures) => outageRetryDelay(rt.cfg, failures),
  });
  let following = false;

  return {
    name: opts.follow ? 'standby-model' : 'write-model',
    async start() {
      if (!opts.follow) {
        await warmModel(rt.pool, model, log, () => rt.clock.now().getTime());
        return;
      }
      // A standby must wait for the lock whatever happens here: its loop folds on after a failure.
      await warmModel(rt.pool, model, log, () => rt.clock.now().getTime()).catch((err: unknown) => log.warn({ err }, 'standby: write model not caught up yet; folding on in the background'));
      following = true;
      await listener.start();
      loop.start();
      log.info({ position: model.position }, 'standby: write model follows the log while waiting for the writer lock');
    },
    async stop() {
      if (!following) return;
      following = false;
      await loop.stop();
      await listener.stop();
    },
  };
}
