/** What one bench figure reports: rows of (msgx, baseline measured in the same run, ratio). */

export interface Measure {
  /** The median of `rounds` when the figure ran rounds. */
  readonly value: number;
  readonly unit: string;
  /** Each round's value (the spread is printed beside the median). */
  readonly rounds?: readonly number[];
}

/**
 * What a goal is checked on, so that the table can say when the rounds' spread is wider than the
 * median's margin to the goal (then only more rounds, or a quieter machine, can say whether it is met).
 */
export interface GoalLimit {
  /** The msgx value itself, or msgx ÷ the baseline. */
  readonly of: 'value' | 'ratio';
  /** The goal's bound, in the row's unit (`of: 'value'`) or as a ratio. */
  readonly bound: number;
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
  readonly goal?: { readonly text: string; readonly met: boolean; readonly limit?: GoalLimit };
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
  goal?: { text: string; met: boolean; limit?: GoalLimit },
): Row {
  return { metric, msgx, baseline, ratio: msgx.value / baseline.value, better, ...(goal ? { goal } : {}) };
}

/** A measure of several rounds: their median, with every round kept for the spread. */
export function ofRounds(rounds: readonly number[], unit: string): Measure {
  const sorted = [...rounds].sort((a, b) => a - b);
  return { value: sorted[Math.floor((sorted.length - 1) / 2)]!, unit, rounds };
}

/** Whether the rounds' spread (max − min) is wider than the median's distance to the goal's bound. */
export function spreadWiderThanMargin(r: Row): boolean {
  const limit = r.goal?.limit;
  const rounds = r.msgx.rounds;
  if (!limit || !rounds || rounds.length < 2) return false;
  const scale = limit.of === 'ratio' ? 1 / r.baseline.value : 1;
  const spread = (Math.max(...rounds) - Math.min(...rounds)) * scale;
  const median = limit.of === 'ratio' ? r.ratio : r.msgx.value;
  return spread > Math.abs(median - limit.bound);
}
