/**
 * The one LISTEN connection of the projectors: `msgx_decision` (sent by the pump inside each
 * decision transaction, so delivered on commit) wakes every registered Wakeup. A pool client held
 * for the service's lifetime, through the platform's LISTEN helper (reconnect, once-per-outage
 * logging); meanwhile the projectors' polling fallback keeps them moving.
 */
import { Channels } from '../platform/channels.ts';
import type { Clock } from '../platform/clock.ts';
import type { Pool } from '../platform/db.ts';
import { createListener } from '../platform/listen.ts';
import type { Logger } from '../platform/logger.ts';
import type { Service } from '../platform/service.ts';
import type { Wakeup } from '../platform/wakeup.ts';

export interface DecisionListenerOptions {
  pool: Pool;
  wakeups: readonly Wakeup[];
  clock: Clock;
  log: Logger;
  /** Delay before reconnecting a broken LISTEN connection (default LISTEN_RETRY_MS). */
  retryMs?: number;
}

export interface DecisionListener extends Service {
  listening(): boolean;
}

export function createDecisionListener(opts: DecisionListenerOptions): DecisionListener {
  const wakeAll = () => {
    for (const w of opts.wakeups) w.notify();
  };
  const listener = createListener({
    name: 'projectors',
    source: { pool: opts.pool },
    channels: [Channels.decision],
    onNotify: wakeAll,
    // Anything committed while nobody listened is picked up by one extra pass.
    onListening: wakeAll,
    meanwhile: 'projectors poll until it is back',
    clock: opts.clock,
    log: opts.log,
    retryMs: opts.retryMs,
  });
  return { name: 'decision-listener', ...listener };
}
