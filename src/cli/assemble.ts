import { createHttpServer, type Route } from '../read-api/httpServer.ts';
import type { Runtime } from '../platform/runtime.ts';
import type { ReadinessCheck, Service } from '../platform/service.ts';

export const ROLES = ['all', 'writer', 'api'] as const;
export type Role = (typeof ROLES)[number];

export interface App {
  start(): Promise<void>;
  stop(): Promise<void>;
  httpPort(): number;
}

/**
 * The composition root: which services run for a role, in start order (stopped in reverse).
 * writer = ingest, pump, projectors, dispatcher, jobs; api = HTTP (GraphQL, compat, health, metrics).
 */
export async function assemble(rt: Runtime, opts: { role: Role; standby: boolean }): Promise<App> {
  const readiness: ReadinessCheck[] = [
    { name: 'postgres', check: async () => void (await rt.pool.query('SELECT 1')) },
    { name: 'mailbox', check: () => rt.mailbox.ping() },
  ];
  const routes: Route[] = [];
  const services: Service[] = [];

  const http = createHttpServer({ host: rt.cfg.http.host, port: rt.cfg.http.port, log: rt.log.child({ role: 'http' }), routes, readiness });
  services.push(http);

  const started: Service[] = [];
  return {
    httpPort: () => http.port(),
    async start() {
      for (const s of services) {
        await s.start();
        started.push(s);
      }
    },
    async stop() {
      for (const s of started.reverse()) await s.stop().catch((err: unknown) => rt.log.error({ err, service: s.name }, 'stop failed'));
      started.length = 0;
    },
  };
}
