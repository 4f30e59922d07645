/** The printed table (Markdown, so it pastes into docs/benchmarks.md) and bench/results/latest.json. */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Figure, FigureResult, Measure } from './figure.ts';

export const RESULTS_FILE = fileURLToPath(new URL('../results/latest.json', import.meta.url));

export interface FigureOutcome {
  readonly figure: Figure;
  readonly seconds: number;
  readonly result?: FigureResult;
  readonly error?: string;
}

export function formatMeasure(m: Measure): string {
  const v = Math.abs(m.value) >= 1000 ? Math.round(m.value).toLocaleString('en-US') : m.value >= 100 ? m.value.toFixed(0) : m.value >= 10 ? m.value.toFixed(1) : m.value.toFixed(2);
  return `${v} ${m.unit}`;
}

const ratioText = (r: number): string => `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;

export function formatTable(outcomes: readonly FigureOutcome[]): string {
  const lines = [
    '| # | figure | metric | msgx | baseline (same run) | ratio msgx÷baseline | goal | met |',
    '|---|---|---|---:|---|---:|---|---|',
  ];
  for (const o of outcomes) {
    const f = o.figure;
    if (!o.result) {
      lines.push(`| ${f.id} | ${f.title} | — | FAILED | ${(o.error ?? '').replace(/\|/g, '/').slice(0, 160)} | — | — | ✗ |`);
      continue;
    }
    o.result.rows.forEach((r, i) => {
      const better = r.better === 'higher' ? '↑' : '↓';
      lines.push(
        `| ${i === 0 ? f.id : ''} | ${i === 0 ? f.title : ''} | ${r.metric} | ${formatMeasure(r.msgx)} | ${formatMeasure(r.baseline)} — ${r.baseline.what} | ${ratioText(r.ratio)} ${better} | ${r.goal?.text ?? ''} | ${r.goal ? (r.goal.met ? '✓' : '✗') : ''} |`,
      );
    });
  }
  return lines.join('\n');
}

export async function writeResults(doc: Record<string, unknown>): Promise<void> {
  await mkdir(fileURLToPath(new URL('../results/', import.meta.url)), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(doc, null, 2)}\n`);
}
