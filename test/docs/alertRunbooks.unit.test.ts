// Every alert rule of docs/operations/alerts.yml links a runbook: a section of docs/operations.md
// that exists (GitHub's heading anchors); the Grafana dashboard scopes every query by instance and role.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} -]/gu, '').replace(/ /g, '-');

describe('alerts and dashboard', () => {
  it('gives every alert a runbook_url naming an existing section of docs/operations.md', () => {
    const anchors = new Set(read('docs/operations.md').split('\n').filter((l) => /^#{1,4} /.test(l)).map((l) => slug(l.replace(/^#+ /, ''))));
    const rules = read('docs/operations/alerts.yml').split(/\n\s*- alert: /).slice(1);
    expect(rules.length).toBeGreaterThan(5);
    for (const rule of rules) {
      const url = /runbook_url: "docs\/operations\.md#([^"]+)"/.exec(rule);
      expect(url, rule.split('\n')[0]).not.toBeNull();
      expect(anchors.has(url![1]!), url![1]).toBe(true);
    }
  });

  it('has instance and role variables used by every query, and a unit and thresholds on every panel', () => {
    const d = JSON.parse(read('docs/operations/grafana-dashboard.json')) as { templating: { list: { name: string }[] }; panels: { title: string; targets: { expr: string }[]; fieldConfig: { defaults: { unit?: string; thresholds?: unknown } } }[] };
    expect(d.templating.list.map((v) => v.name)).toEqual(expect.arrayContaining(['instance', 'role']));
    for (const p of d.panels) {
      for (const t of p.targets) expect(t.expr, p.title).toContain('instance=~"$instance",role=~"$role"');
      expect(p.fieldConfig.defaults.unit, p.title).toBeTruthy();
      expect(p.fieldConfig.defaults.thresholds, p.title).toBeTruthy();
    }
  });
});
