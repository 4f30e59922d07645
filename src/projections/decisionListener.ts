/**
 * The one LISTEN connection of the projectors: `msgx_decision` (sent by the pump inside each
 * decision transaction, so delivered on commit) wakes every registered Wakeup. The connection is
 * a dedicated pool client held for the service's lifetime; when it breaks, the service reconnects
 * after `retryMs` — meanwhile the projectors' polling fallback keeps them moving.
 */
import { Channels, type Channel } from '../platform/channels.ts';
import type { Clock } from '../platform/clock.ts';
import type { Pool, PoolClient } from '../platform/db.ts';
import type { Logger } from '../platform/logger.ts';
import type { Service } from '../platform/service.ts';
import type { Wakeup } from '../platform/wakeup.ts';

export interface DecisionListenerOptions {
  pool: Pool;
  wakeups: readonly Wakeup[];
  clock: Clock;
  log: Logger;
  /** Delay before reconnecting a broken LISTEN connection. */
  retryMs: number;
  channel?: Channel;
}

export interface DecisionListener extends Service {
  listening(): boolean;
}

interface Listening {
  client: PoolClient;
  /** Resolves when the connection reports an error. */
  lost: Promise<void>;
}

export function createDecisionListener(opts: DecisionListenerOptions): DecisionListener {
  const channel = opts.channel ?? Channels.decision;
  const stop = new AbortController();
  const stopped = new Promise<void>((r) => stop.signal.addEventListener('abort', () => r(), { once: true }));
  let current: Listening | undefined;
  let loop: Promise<void> | undefined;
  let degraded = false;

  const wakeAll = () => {
    for (const w of opts.wakeups) w.notify();
  };

  async function open(): Promise<Listening> {
    const client = await opts.pool.connect();
    let onLost: () => void = () => undefined;
    const lost = new Promise<void>((r) => {
      onLost = r;
    });
    client.on('error', () => onLost());
    client.on('end', () => onLost());
    client.on('notification', (n) => {
      if (n.channel === channel) wakeAll();
    });
    try {
      // `channel` is a constant of ours, never input.
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      client.release(true);
      throw new Error(`LISTEN ${channel} failed`, { cause: err });
    }
    return { client, lost };
  }

  async function attempt(): Promise<void> {
    try {
      current = await open();
      if (degraded) opts.log.info({ channel }, 'LISTEN connection restored');
      degraded = false;
      // Anything committed while nobody listened is picked up by one extra pass.
      wakeAll();
    } catch (err) {
      if (!degraded) opts.log.warn({ err, channel }, 'LISTEN connection failed; projectors poll until it is back');
      degraded = true;
    }
  }

  async function run(): Promise<void> {
    for (;;) {
      if (current) {
        await Promise.race([current.lost, stopped]);
        const { client } = current;
        current = undefined;
        if (stop.signal.aborted) {
          await client.query(`UNLISTEN ${channel}`).catch(() => undefined);
          client.release();
          return;
        }
        if (!degraded) opts.log.warn({ channel }, 'LISTEN connection lost; projectors poll until it is back');
        degraded = true;
        client.release(true);
      }
      await opts.clock.sleep(opts.retryMs, stop.signal);
      if (stop.signal.aborted) return;
      await attempt();
    }
  }

  return {
    name: 'decision-listener',
    listening: () => current !== undefined,
    async start() {
      if (loop) return;
      await attempt();
      loop = run();
    },
    async stop() {
      stop.abort();
      await loop;
      if (current) {
        current.client.release();
        current = undefined;
      }
    },
  };
}
