/**
 * The one LISTEN helper (docs/architecture.md): the pump, the dispatcher, the request tracker, the projectors'
 * decision listener and the read API's live feed each hold one LISTEN connection through it, with
 * one reconnect policy and one way of logging an outage:
 *
 * - start() tries once and never throws: nobody depends on notifications for correctness (every
 *   user also polls), so a database that is not there yet only delays the wake-ups;
 * - a lost or refused connection is retried every `retryMs` (default 1 s) of the clock;
 * - an outage is logged once: a warning when the connection is lost (or cannot be had), one info
 *   line `<name>: listening again` when it is back; the failed tries in between at debug;
 * - after every (re)connect, once LISTEN took effect, `onListening` runs: notifications sent while
 *   nobody listened are lost, so the user catches up there (a failing catch-up counts as a failed
 *   try and the connection is dropped and tried again).
 *
 * The connection is a dedicated client on `url` (no pool slot held for ever) or a client held
 * from `pool` (the read API's pool for the live feed).
 */
import pg from 'pg';
import type { Channel } from './channels.ts';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';

/** The reconnect delay of every LISTEN connection. */
export const LISTEN_RETRY_MS = 1000;

export interface ListenOptions {
  /** Names the connection in the log: `<name>: LISTEN connection lost; …`. */
  readonly name: string;
  readonly source: { readonly url: string } | { readonly pool: pg.Pool };
  readonly channels: readonly Channel[];
  onNotify(channel: Channel, payload: string): void;
  /** After each (re)connect, LISTEN in effect: catch up on what was sent meanwhile. */
  onListening?(): void | Promise<void>;
  /** What happens without notifications, for the outage warning (e.g. 'the pump polls until it is back'). */
  readonly meanwhile: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly retryMs?: number;
}

export interface Listener {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A LISTEN connection is up right now. */
  listening(): boolean;
}

interface Session {
  /** Resolves when the connection reports an error or ends. */
  readonly lost: Promise<void>;
  /** UNLISTEN and hand the connection back (stop). */
  close(): Promise<void>;
  /** Drop a broken connection. */
  discard(): void;
}

interface Connection {
  readonly client: pg.ClientBase;
  /** Hand back (pool) or end (dedicated); `broken` makes a pool destroy it. */
  finish(broken: boolean): void;
}

async function connect(source: ListenOptions['source']): Promise<Connection> {
  if ('pool' in source) {
    const c = await source.pool.connect();
    return { client: c, finish: (broken) => c.release(broken ? true : undefined) };
  }
  const c = new pg.Client({ connectionString: source.url, application_name: 'msgx-listen' });
  c.on('error', () => undefined); // reported through `lost`; an unhandled 'error' event would kill the process
  const end = () => void c.end().catch(() => undefined);
  try {
    await c.connect();
  } catch (err) {
    end();
    throw err;
  }
  return { client: c, finish: end };
}

export function createListener(opts: ListenOptions): Listener {
  const retryMs = opts.retryMs ?? LISTEN_RETRY_MS;
  const stop = new AbortController();
  const stopped = new Promise<void>((r) => stop.signal.addEventListener('abort', () => r(), { once: true }));
  let current: Session | undefined;
  let loop: Promise<void> | undefined;
  /** In an outage that was logged already. */
  let outage = false;

  async function open(): Promise<Session> {
    const { client, finish } = await connect(opts.source);
    let onLost: () => void = () => undefined;
    const lost = new Promise<void>((r) => {
      onLost = r;
    });
    const onNotification = (n: pg.Notification): void => {
      const channel = opts.channels.find((c) => c === n.channel);
      if (channel !== undefined) opts.onNotify(channel, n.payload ?? '');
    };
    client.on('error', () => onLost());
    client.on('end', () => onLost());
    client.on('notification', onNotification);
    const quiet = () => client.removeListener('notification', onNotification);
    try {
      for (const ch of opts.channels) await client.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
      await opts.onListening?.();
    } catch (err) {
      quiet();
      finish(true);
      throw err;
    }
    return {
      lost,
      async close() {
        quiet();
        const clean = await client.query('UNLISTEN *').then(() => true, () => false);
        finish(!clean);
      },
      discard() {
        quiet();
        finish(true);
      },
    };
  }

  async function attempt(): Promise<void> {
    try {
      current = await open();
      if (outage) opts.log.info({ channels: opts.channels }, `${opts.name}: listening again`);
      outage = false;
    } catch (err) {
      if (outage) opts.log.debug({ err }, `${opts.name}: LISTEN still not possible`);
      else opts.log.warn({ err, channels: opts.channels }, `${opts.name}: cannot LISTEN; ${opts.meanwhile}`);
      outage = true;
    }
  }

  async function run(): Promise<void> {
    for (;;) {
      if (current) {
        await Promise.race([current.lost, stopped]);
        const session = current;
        current = undefined;
        if (stop.signal.aborted) {
          await session.close();
          return;
        }
        session.discard();
        if (!outage) opts.log.warn({ channels: opts.channels }, `${opts.name}: LISTEN connection lost; ${opts.meanwhile}`);
        outage = true;
      }
      await opts.clock.sleep(retryMs, stop.signal);
      if (stop.signal.aborted) return;
      await attempt();
    }
  }

  return {
    listening: () => current !== undefined,
    async start() {
      if (loop) return;
      await attempt();
      loop = run();
    },
    async stop() {
      stop.abort();
      await loop;
      // stopped before start() finished its try, or start() never ran
      await current?.close();
      current = undefined;
    },
  };
}

/** A listener whose only job is to wake a loop: every notification, and every (re)connect, notify `wakeup`. */
export function createWakingListener(wakeup: { notify(): void }, opts: Omit<ListenOptions, 'onNotify' | 'onListening'>): Listener {
  return createListener({ ...opts, onNotify: () => wakeup.notify(), onListening: () => wakeup.notify() });
}
