import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../platform/logger.ts';
import type { ReadinessCheck, Service } from '../platform/service.ts';

export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void;

export interface Route {
  readonly method: string | '*';
  /** exact path, or a prefix ending in '*' (e.g. '/graphql*') */
  readonly path: string;
  readonly handler: RouteHandler;
}

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly log: Logger;
  readonly routes?: readonly Route[];
  readonly readiness?: readonly ReadinessCheck[];
  /** per-check timeout for /readyz */
  readonly checkTimeoutMs?: number;
  /** The run mode shown by /readyz ('shadow' | 'production'); omitted when not given. */
  readonly mode?: () => Promise<string>;
}

export interface HttpServer extends Service {
  /** the bound port (useful with port 0) */
  port(): number;
}

/** One HTTP server for GraphQL, the compatibility entry, health and metrics. */
export function createHttpServer(opts: HttpServerOptions): HttpServer {
  const builtIn: Route[] = [
    { method: 'GET', path: '/healthz', handler: (_q, res) => json(res, 200, { status: 'ok' }) },
    { method: 'GET', path: '/readyz', handler: (_q, res) => readyz(res, opts.readiness ?? [], opts.checkTimeoutMs ?? 2000, opts.mode) },
  ];
  const server = http.createServer((req, res) => {
    // Read at request time, so routes pushed after construction (assemble.ts) are served too.
    const routes = [...builtIn, ...(opts.routes ?? [])];
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = routes.find(
      (r) =>
        (r.path.endsWith('*') ? url.pathname.startsWith(r.path.slice(0, -1)) : url.pathname === r.path) &&
        (r.method === '*' || r.method === req.method),
    );
    if (!route) {
      const known = routes.some((r) => (r.path.endsWith('*') ? url.pathname.startsWith(r.path.slice(0, -1)) : url.pathname === r.path));
      return json(res, known ? 405 : 404, { error: known ? 'method not allowed' : 'not found' });
    }
    Promise.resolve()
      .then(() => route.handler(req, res))
      .catch((err: unknown) => {
        opts.log.error({ err, path: url.pathname }, 'http handler failed');
        if (!res.headersSent) json(res, 500, { error: 'internal error' });
        else res.end();
      });
  });
  server.keepAliveTimeout = 5000;
  let started = false;
  return {
    name: 'http',
    port: () => (server.address() as AddressInfo | null)?.port ?? opts.port,
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

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
