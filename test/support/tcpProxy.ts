/**
 * An in-process TCP proxy to put between msgx and a dependency (PostgreSQL, MariaDB) that other
 * tests share and that must therefore never be stopped. `cut()` plays "the server went down":
 * every live connection is closed and new ones are refused (the port stops listening, so clients
 * get ECONNREFUSED, as from a stopped server). `restore()` listens again on the same port.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxyOptions {
  readonly target: { readonly host: string; readonly port: number };
  /** Interface to listen on; default 127.0.0.1. */
  readonly host?: string;
}

export interface TcpProxyStats {
  /** Client connections accepted and bridged so far. */
  readonly accepted: number;
  /** Bridged connections open right now. */
  readonly live: number;
  /** Connections closed by cut(). */
  readonly cutConnections: number;
}

export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  /** `host:port` of the proxy. */
  readonly address: string;
  /** `url` with its host and port replaced by the proxy's (user, database and query kept). */
  url(url: string): string;
  /** Close every live connection (both sides) and stop listening: new connections are refused. */
  cut(): void;
  /**
   * Blackhole every live connection: the client side stays open but never hears anything again
   * (what a silently dropped network path looks like to it), while the server side is closed (as
   * the server's own keepalive would eventually do), so the server ends that session. New
   * connections are still bridged normally. `only`: just the connections whose port towards the
   * target (see upstreamPorts) it accepts. Returns how many were blackholed.
   */
  blackhole(only?: (upstreamPort: number) => boolean): number;
  /**
   * Close every live connection, both sides, and keep listening. Behind a link that is down (the
   * client's network namespace cut off) this is what the network does to the server's sessions
   * once TCP keepalive gives up: the server ends them (and frees what they held, e.g. an advisory
   * lock), while the client hears of it only when its link is back. Returns how many were closed.
   */
  drop(): number;
  /**
   * The local ports of every connection this proxy opened to the target, live or closed: what the
   * server sees as the client's port (`inet_client_port()`), to tell which proxy a session came through.
   */
  upstreamPorts(): ReadonlySet<number>;
  /** Listen again on the same port. */
  restore(): Promise<void>;
  isCut(): boolean;
  stats(): TcpProxyStats;
  close(): Promise<void>;
}

/** Start a proxy on an ephemeral port forwarding to `target`. */
export async function startTcpProxy(opts: TcpProxyOptions): Promise<TcpProxy> {
  const host = opts.host ?? '127.0.0.1';
  const pairs = new Set<{ client: Socket; upstream: Socket; silent?: boolean }>();
  const counts = { accepted: 0, cutConnections: 0 };
  const upstreamPorts = new Set<number>();
  let server: Server | null = null;
  let port = 0;
  let closed = false;

  const bridge = (client: Socket): void => {
    counts.accepted += 1;
    const upstream = connect({ host: opts.target.host, port: opts.target.port });
    upstream.once('connect', () => {
      if (upstream.localPort !== undefined) upstreamPorts.add(upstream.localPort);
    });
    const pair: { client: Socket; upstream: Socket; silent?: boolean } = { client, upstream };
    pairs.add(pair);
    const end = (): void => {
      if (pair.silent) return; // blackholed: the client hears nothing, not even a close
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      s.on('error', end);
      s.on('close', end);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = createServer(bridge);
      s.once('error', reject);
      s.listen(port, host, () => {
        s.off('error', reject);
        const a = s.address();
        if (a !== null && typeof a === 'object') port = a.port;
        server = s;
        resolve();
      });
    });

  const dropAll = (): number => {
    const n = pairs.size;
    for (const p of [...pairs]) {
      p.client.destroy();
      p.upstream.destroy();
    }
    pairs.clear();
    return n;
  };

  await listen();

  return {
    host,
    get port() {
      return port;
    },
    get address() {
      return `${host}:${port}`;
    },
    url(url: string): string {
      const u = new URL(url);
      u.hostname = host;
      u.port = String(port);
      return u.toString();
    },
    blackhole(only?: (upstreamPort: number) => boolean): number {
      let n = 0;
      for (const p of pairs) {
        if (p.silent) continue;
        if (only && !only(p.upstream.localPort ?? -1)) continue;
        p.silent = true;
        p.client.unpipe(p.upstream);
        p.upstream.unpipe(p.client);
        p.client.pause();
        p.upstream.destroy();
        n += 1;
      }
      return n;
    },
    cut(): void {
      const s = server;
      server = null;
      // close() releases the port at once; its callback would wait for connections, which we drop.
      s?.close();
      counts.cutConnections += dropAll();
    },
    drop(): number {
      const n = dropAll();
      counts.cutConnections += n;
      return n;
    },
    upstreamPorts: () => upstreamPorts,
    async restore(): Promise<void> {
      if (closed) throw new Error('restore() after close()');
      if (server === null) await listen();
    },
    isCut: () => server === null,
    stats: () => ({ accepted: counts.accepted, live: pairs.size, cutConnections: counts.cutConnections }),
    async close(): Promise<void> {
      closed = true;
      const s = server;
      server = null;
      dropAll();
      if (s !== null) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

/** The target of a database URL (`postgres://…@host:port/db`, `mysql://…`), for `startTcpProxy`. */
export function targetOf(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: u.port ? Number(u.port) : defaultPort };
}
