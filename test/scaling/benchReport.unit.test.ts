import { describe, expect, it } from 'vitest';
import { ofRounds, row, spreadWiderThanMargin } from '../../bench/harness/figure.ts';
import { formatMeasure } from '../../bench/harness/report.ts';

describe('bench figures of rounds (docs/benchmarks.md)', () => {
  it('report the median and the spread of the rounds', () => {
    const m = ofRounds([1930, 1752, 1610], 'ms');
    expect(m.value).toBe(1752);
    expect(formatMeasure(m)).toBe('1,752 ms [1,610–1,930, 3 rounds]');
    expect(formatMeasure({ value: 1752, unit: 'ms' })).toBe('1,752 ms');
  });

  it('say when the spread is wider than the margin to the goal, for a value and for a ratio', () => {
    const base = { value: 100, unit: 'ms', what: 'b' };
    // median 1,400, margin 100 to 1,500; spread 300 → wider.
    const near = row('t', ofRounds([1300, 1400, 1600], 'ms'), base, 'lower', { text: '≤ 1,500 ms', met: true, limit: { of: 'value', bound: 1500 } });
    expect(spreadWiderThanMargin(near)).toBe(true);
    // median 1,000, margin 500; spread 100 → not wider.
    const far = row('t', ofRounds([950, 1000, 1050], 'ms'), base, 'lower', { text: '≤ 1,500 ms', met: true, limit: { of: 'value', bound: 1500 } });
    expect(spreadWiderThanMargin(far)).toBe(false);
    // ratio: 87 / 100 = 0.87×, margin 0.07 to 0.8×; rounds 75–95 → spread 0.20 → wider.
    const ratio = row('t', ofRounds([75, 87, 95], 'msg/s'), { value: 100, unit: 'dec/s', what: 'b' }, 'higher', { text: '≥ 0.8×', met: true, limit: { of: 'ratio', bound: 0.8 } });
    expect(spreadWiderThanMargin(ratio)).toBe(true);
    expect(spreadWiderThanMargin(row('t', { value: 87, unit: 'msg/s' }, base, 'higher', { text: '≥ 0.8×', met: true }))).toBe(false);
  });
});
