/** What one bench figure reports: rows of (msgx, baseline measured in the same run, ratio). */

export interface Measure {
  readonly value: number;
  readonly unit: string;
}

export interface Row {
  readonly metric: string;
  readonly msgx: Measure;
  /** The baseline, measured in the same run, and what it is. */
  readonly baseline: Measure & { readonly what: string };
  /** msgx ÷ baseline (in the row's unit). */
  readonly ratio: number;
  /** Whether a higher or a lower ratio is the better one. */
  readonly better: 'higher' | 'lower';
  readonly goal?: { readonly text: string; readonly met: boolean };
}

export interface FigureResult {
  readonly rows: readonly Row[];
  /** Further absolute numbers (written to latest.json). */
  readonly details: Readonly<Record<string, unknown>>;
}

export interface Figure {
  readonly id: number;
  /** `npm run bench -- <name>` */
  readonly name: string;
  readonly title: string;
  run(): Promise<FigureResult>;
}

export function row(
  metric: string,
  msgx: Measure,
  baseline: Measure & { what: string },
  better: 'higher' | 'lower',
  goal?: { text: string; met: boolean },
): Row {
  return { metric, msgx, baseline, ratio: msgx.value / baseline.value, better, ...(goal ? { goal } : {}) };
}
