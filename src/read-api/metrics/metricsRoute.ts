/**
 * GET /metrics for every role. Apart from the read API (readApi.ts), so that a writer, which
 * serves /metrics but not GraphQL, does not load GraphQL's modules before its lock
 * (docs/scaling.md "Restart, takeover and stop").
 */
import type { ModeProbe } from '../../platform/runMode.ts';
import { createModeProbe } from '../../platform/runMode.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { Route } from '../httpServer.ts';
import { createMetrics, type Metrics } from './createMetrics.ts';

/** GET /metrics (Prometheus text format), for every role. */
export function metricsRoute(metrics: Metrics): Route {
  return {
    method: 'GET',
    path: '/metrics',
    async handler(_req, res) {
      const text = await metrics.scrape();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(text);
    },
  };
}

/** MSGX_READ_DATABASE_URL names another server than the writer's (a streaming replica). */
export function readsFromReplica(rt: Pick<Runtime, 'cfg'>): boolean {
  return rt.cfg.readDatabaseUrl !== undefined && rt.cfg.readDatabaseUrl !== rt.cfg.databaseUrl;
}

export function createMetricsRoute(rt: Pick<Runtime, 'readPool' | 'clock' | 'cfg'> & Partial<Pick<Runtime, 'mailbox' | 'pool'>>, mode?: ModeProbe, fenced?: { readonly value: number }): Route {
  return metricsRoute(
    createMetrics({ db: rt.readPool, ...(rt.pool && readsFromReplica(rt) ? { primary: rt.pool } : {}), clock: rt.clock, tz: rt.cfg.airportTz, mode: mode ?? createModeProbe(rt.readPool), ...(rt.mailbox ? { mailbox: rt.mailbox } : {}), ...(fenced ? { fenced } : {}) }),
  );
}
