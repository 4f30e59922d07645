import pg from 'pg';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';

export interface Listener {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * LISTEN on `channels` over a dedicated connection and call `onNotify` for every notification.
 * A lost connection is re-established (1 s apart, on the clock) and `onNotify` is called once after
 * reconnecting, since notifications sent meanwhile are lost.
 */
export function createListener(opts: {
  url: string;
  channels: readonly string[];
  onNotify: (channel: string, payload: string | undefined) => void;
  clock: Clock;
  log: Logger;
}): Listener {
  let client: pg.Client | undefined;
  let stopped = false;
  const stop = new AbortController();

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: opts.url, application_name: 'msgx-listen' });
    c.on('notification', (n) => opts.onNotify(n.channel, n.payload));
    c.on('error', (err) => {
      if (stopped) return;
      opts.log.warn({ err }, 'notification connection lost; reconnecting');
      void c.end().catch(() => undefined);
      void reconnect();
    });
    await c.connect();
    for (const ch of opts.channels) await c.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
    client = c;
  }

  async function reconnect(): Promise<void> {
    client = undefined;
    while (!stopped) {
      await opts.clock.sleep(1000, stop.signal);
      if (stopped) return;
      try {
        await connect();
        opts.onNotify('', undefined);
        return;
      } catch (err) {
        opts.log.debug({ err }, 'reconnect failed');
      }
    }
  }

  return {
    start: connect,
    async stop() {
      stopped = true;
      stop.abort();
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
