/** The printed table (Markdown, so it pastes into docs/benchmarks.md) and bench/results/latest.json. */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { spreadWiderThanMargin, type Figure, type FigureResult, type Measure } from './figure.ts';

export const RESULTS_FILE = fileURLToPath(new URL('../results/latest.json', import.meta.url));

export interface FigureOutcome {
  readonly figure: Figure;
  readonly seconds: number;
  readonly result?: FigureResult;
  readonly error?: string;
}

const numberText = (v: number): string =>
  Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en-US') : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);

/** `1,752 ms`, or for a figure of rounds the median and the spread: `1,752 ms [1,610–1,930, 3 rounds]`. */
export function formatMeasure(m: Measure): string {
  const rounds = m.rounds && m.rounds.length > 1 ? ` [${numberText(Math.min(...m.rounds))}–${numberText(Math.max(...m.rounds))}, ${m.rounds.length} rounds]` : '';
  return `${numberText(m.value)} ${m.unit}${rounds}`;
}

function metText(r: FigureResult['rows'][number]): string {
  if (!r.goal) return '';
  const mark = r.goal.met ? '✓' : '✗';
  return spreadWiderThanMargin(r) ? `${mark} (the spread is wider than the margin)` : mark;
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
        `| ${i === 0 ? f.id : ''} | ${i === 0 ? f.title : ''} | ${r.metric} | ${formatMeasure(r.msgx)} | ${formatMeasure(r.baseline)} — ${r.baseline.what} | ${ratioText(r.ratio)} ${better} | ${r.goal?.text ?? ''} | ${metText(r)} |`,
      );
    });
  }
  return lines.join('\n');
}

export async function writeResults(doc: Record<string, unknown>): Promise<void> {
  await mkdir(fileURLToPath(new URL('../results/', import.meta.url)), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(doc, null, 2)}\n`);
}
