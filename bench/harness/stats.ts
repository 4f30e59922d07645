/** Small timing and statistics helpers. */

export const nowMs = (): number => performance.now();

/** Nearest-rank percentile (p in 0..100) of `values` (need not be sorted). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export function summarize(values: readonly number[]): { n: number; p50: number; p90: number; p99: number; min: number; max: number } {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

export const round = (v: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

/** Resolve after `ms` of wall time. Benches pace load with it; tests never do. */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
