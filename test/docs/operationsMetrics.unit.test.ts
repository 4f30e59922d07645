/**
 * The Grafana dashboard and the Prometheus alert rules in docs/operations/ use exactly the metric
 * names msgx exports: every msgx_* name they mention is registered by createMetrics (a renamed
 * metric fails here, not on a dashboard at 3 a.m.), and each operator gauge the runbook relies on
 * is on the dashboard.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.ts';
import { createMetrics } from '../../src/read-api/metrics/createMetrics.ts';

const read = (f: string) => readFileSync(new URL(`../../docs/operations/${f}`, import.meta.url), 'utf8');

/** Names a PromQL expression may use for each registered metric (a histogram adds _bucket, _sum, _count). */
function exportedNames(): Set<string> {
  const noDb = { query: () => Promise.reject(new Error('not scraped in this test')) };
  const m = createMetrics({ db: noDb as never, clock: systemClock, tz: 'UTC' });
  const names = new Set<string>();
  for (const metric of m.registry.getMetricsAsArray()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(metric.name + s);
  }
  return names;
}

const dashboard = JSON.parse(read('grafana-dashboard.json')) as { panels: { targets: { expr: string }[] }[] };
const dashboardExprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
const alertExprs = [...read('alerts.yml').matchAll(/^\s*expr:\s*(.+)$/gm)].map((m) => m[1]!);
const mentioned = (exprs: readonly string[]) => new Set(exprs.flatMap((e) => [...e.matchAll(/\bmsgx_[a-z0-9_]+/g)].map((m) => m[0])));

it('every metric the dashboard and the alerts use is exported', () => {
  const exported = exportedNames();
  const used = new Set([...mentioned(dashboardExprs), ...mentioned(alertExprs)]);
  expect(used.size).toBeGreaterThan(10);
  expect([...used].filter((n) => !exported.has(n))).toEqual([]);
});

it('the operator gauges exist and are on the dashboard; the alerts cover gaps, parked, dead, write-backs and the mailbox', () => {
  const gauges = [
    'msgx_open_gaps', 'msgx_parked_messages', 'msgx_dead_messages', 'msgx_pending_writebacks', 'msgx_mailbox_up',
    'msgx_head_age_seconds', 'msgx_projection_lag', 'msgx_outbox_oldest_pending_age_seconds',
  ];
  const exported = exportedNames();
  for (const g of gauges) expect(exported, g).toContain(g);
  const onDashboard = mentioned(dashboardExprs);
  for (const g of gauges) expect(onDashboard, g).toContain(g);
  const alerted = mentioned(alertExprs);
  for (const g of ['msgx_open_gaps', 'msgx_parked_messages', 'msgx_dead_messages', 'msgx_pending_writebacks', 'msgx_mailbox_up']) expect(alerted, g).toContain(g);
});
