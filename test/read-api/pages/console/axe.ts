/**
 * axe-core, injected into a page the console's browser tests opened: the accessibility check of
 * every view (docs/operations.md, "Console").
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** axe-core's browser build (a devDependency; MSGX_TEST_AXE_DIR points at an unpacked copy otherwise). */
async function axeSource(): Promise<string> {
  const dir = process.env.MSGX_TEST_AXE_DIR ?? path.dirname(createRequire(import.meta.url).resolve('axe-core/package.json'));
  return readFile(path.join(dir, 'axe.min.js'), 'utf8');
}

interface AxeViolation { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }

/** Serious and critical violations axe finds on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // evaluated over the DevTools protocol: the page's CSP (no inline script) stays as it is
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${await axeSource()}\n;true`);
  const violations = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe.run();
    return r.violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
