import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { admitConnections, type Admission } from '../platform/http/connectionAdmission.ts';
import { json, type Route } from '../platform/http/routes.ts';
import { applySecurityHeaders } from '../platform/http/securityHeaders.ts';
import type { Logger } from '../platform/logger.ts';
import type { ReadinessCheck, Service } from '../platform/service.ts';

export { json, type Route, type RouteHandler } from '../platform/http/routes.ts';

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly log: Logger;
  readonly routes?: readonly Route[];
  readonly readiness?: readonly ReadinessCheck[];
  /** per-check timeout for /readyz */
  readonly checkTimeoutMs?: number;
  /** open connections at most (MSGX_HTTP_MAX_CONNECTIONS); past it, health answers only (connectionAdmission.ts) */
  readonly maxConnections?: number;
  /** open connections of one remote address at most (MSGX_HTTP_MAX_CONNECTIONS_PER_CLIENT) */
  readonly maxConnectionsPerClient?: number;
  /** The run mode shown by /readyz ('shadow' | 'production'); omitted when not given. */
  readonly mode?: () => Promise<string>;
}

/**
 * Bounds of the server (docs/security.md §2 HTTP): a client that sends its headers slowly, a body
 * slowly, or holds idle connections cannot tie up the process. SSE subscriptions send a ping
 * every 12 s, so the idle timeout never ends a live one. Node 20's own defaults are looser
 * (headers 60 s, request 300 s, no idle timeout) and it checks the first two only every 30 s,
 * which let trickled headers hold a slot for 21–24 s: the check runs every second here.
 */
export const HTTP_LIMITS = Object.freeze({
  /** request line + headers at most this many bytes → 431 */
  maxHeaderSize: 16 * 1024,
  /** headers at most this many → the rest are dropped by Node */
  maxHeadersCount: 100,
  /** the whole header block must arrive within this → 408 (checked every connectionsCheckingIntervalMs) */
  headersTimeoutMs: 10_000,
  connectionsCheckingIntervalMs: 1_000,
  /** the whole request (headers and body, e.g. a 16 MiB message) must arrive within this → 408 */
  requestTimeoutMs: 60_000,
  /** a socket with no traffic for this long is closed */
  idleTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  maxRequestsPerSocket: 1_000,
  defaultMaxConnections: 1_000,
  defaultMaxConnectionsPerClient: 128,
  /** a connection past the caps must send its (health) request within this, or it is closed */
  healthOnlyWindowMs: 2_000,
  /** connections past the caps kept for health answers at most; past this, 503 written and closed */
  healthOnlyMax: 1_000,
});

/**
 * A request the parser refused (docs/security.md §2 HTTP), answered as Node's own handler would —
 * 431 for headers over maxHeaderSize, 413 for chunk extensions, 408 when they came too slowly,
 * else 400 — with one difference for 431 and 413: the client is usually still sending, and closing
 * a socket with unread bytes makes the kernel send a reset that can overtake the answer (the
 * client then sees ECONNRESET, not 431). So those are answered with a half-close, and what the
 * client still sends is read and dropped for at most LINGER_MS (a lingering close).
 */
const LINGER_MS = 2_000;

function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? 413 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const net = socket as Socket;
  if (!net.writable || net.bytesWritten > 0 || err.code === 'ECONNRESET') {
    net.destroy();
    return;
  }
  const answer = `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`;
  if (status !== 431 && status !== 413) {
    net.write(answer);
    net.destroy();
    return;
  }
  net.end(answer);
  net.on('error', () => undefined);
  net.resume();
  setTimeout(() => net.destroy(), LINGER_MS).unref();
}

/** Answered on any connection, also one past the caps: cheap, no body, never streamed. */
const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

export interface HttpServer extends Service {
  /** the bound port (useful with port 0) */
  port(): number;
  /** open connections: within the caps, and past them (health only) */
  connections(): { admitted: number; healthOnly: number };
}

/** One HTTP server for GraphQL, the compatibility entry, health and metrics. */
export function createHttpServer(opts: HttpServerOptions): HttpServer {
  const builtIn: Route[] = [
    { method: 'GET', path: '/healthz', handler: (_q, res) => json(res, 200, { status: 'ok' }) },
    { method: 'GET', path: '/readyz', handler: (_q, res) => readyz(res, opts.readiness ?? [], opts.checkTimeoutMs ?? 2000, opts.mode) },
  ];
  const dispatch = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    applySecurityHeaders(res);
    const pathname = requestPath(req.url);
    if (pathname === undefined) {
      // e.g. `GET //[ HTTP/1.1`: the URL does not parse. A client's fault, answered, never thrown.
      req.resume();
      return json(res, 400, { error: 'malformed request URL' });
    }
    const admission = admissions.admissionOf(req.socket);
    if (admission !== 'admitted') {
      // A connection past the caps (connectionAdmission.ts): health only, then closed.
      admissions.requestArrived(req.socket);
      res.setHeader('connection', 'close');
      if (!HEALTH_PATHS.has(pathname)) {
        req.resume();
        res.setHeader('retry-after', '5');
        return json(res, refusalStatus(admission), { error: refusalReason(admission) });
      }
    }
    // Read at request time, so routes pushed after construction (assemble.ts) are served too.
    const routes = [...builtIn, ...(opts.routes ?? [])];
    const matches = (r: Route) => (r.path.endsWith('*') ? pathname.startsWith(r.path.slice(0, -1)) : pathname === r.path);
    const route = routes.find((r) => matches(r) && (r.method === '*' || r.method === req.method));
    if (!route) {
      req.resume();
      const known = routes.some(matches);
      return json(res, known ? 405 : 404, { error: known ? 'method not allowed' : 'not found' });
    }
    try {
      await route.handler(req, res);
    } catch (err) {
      opts.log.error({ err, path: pathname }, 'http handler failed');
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.end();
    }
  };
  const server = http.createServer(
    {
      maxHeaderSize: HTTP_LIMITS.maxHeaderSize,
      headersTimeout: HTTP_LIMITS.headersTimeoutMs,
      requestTimeout: HTTP_LIMITS.requestTimeoutMs,
      keepAliveTimeout: HTTP_LIMITS.keepAliveTimeoutMs,
      connectionsCheckingInterval: HTTP_LIMITS.connectionsCheckingIntervalMs,
    },
    (req, res) => {
      // Every request runs inside this guard: nothing a request does may throw out of the listener
      // (an exception here would reach the process and stop the writer with it).
      dispatch(req, res).catch((err: unknown) => {
        opts.log.error({ err }, 'http request failed');
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    },
  );
  server.on('clientError', answerClientError);
  server.maxHeadersCount = HTTP_LIMITS.maxHeadersCount;
  server.maxRequestsPerSocket = HTTP_LIMITS.maxRequestsPerSocket;
  const admissions = admitConnections(
    server,
    {
      maxConnections: opts.maxConnections ?? HTTP_LIMITS.defaultMaxConnections,
      maxPerClient: opts.maxConnectionsPerClient ?? HTTP_LIMITS.defaultMaxConnectionsPerClient,
      healthOnlyWindowMs: HTTP_LIMITS.healthOnlyWindowMs,
      healthOnlyMax: HTTP_LIMITS.healthOnlyMax,
    },
    opts.log,
  );
  server.setTimeout(HTTP_LIMITS.idleTimeoutMs);
  let started = false;
  return {
    name: 'http',
    port: () => (server.address() as AddressInfo | null)?.port ?? opts.port,
    connections: () => admissions.open(),
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(opts.port, opts.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      started = true;
      opts.log.info({ port: (server.address() as AddressInfo).port }, 'http listening');
    },
    async stop() {
      if (!started) return;
      started = false;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

const refusalStatus = (a: Admission): number => (a === 'client-full' ? 429 : 503);
const refusalReason = (a: Admission): string =>
  a === 'client-full'
    ? 'too many connections from your address (MSGX_HTTP_MAX_CONNECTIONS_PER_CLIENT); close some and try again'
    : 'too many connections (MSGX_HTTP_MAX_CONNECTIONS); try again later';

/** The path of a request target, or undefined when it is not a URL path we can parse. */
export function requestPath(target: string | undefined): string | undefined {
  if (!target || target.length > HTTP_LIMITS.maxHeaderSize) return undefined;
  try {
    const url = new URL(target, 'http://localhost');
    return url.pathname;
  } catch {
    return undefined;
  }
}

async function readyz(res: http.ServerResponse, checks: readonly ReadinessCheck[], timeoutMs: number, mode?: () => Promise<string>): Promise<void> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withTimeout(c.check(), timeoutMs);
        return { name: c.name, ok: true as const };
      } catch (err) {
        return { name: c.name, ok: false as const, error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  const ok = results.every((r) => r.ok);
  // The mode comes from the database: unknown (null) while it cannot be read; the postgres check says why.
  const shown = mode ? { mode: await withTimeout(mode(), timeoutMs).catch(() => null) } : {};
  json(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', ...shown, checks: results });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
