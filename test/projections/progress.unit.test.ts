import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { ProgressTracker, formatProgress, measure, type RebuildProgress } from '../../src/projections/rebuild/progress.ts';

const at = { phase: 'replay', events: 30_000, total: 120_000, position: '30000', flights: 900 } as const;

describe('rebuild progress', () => {
  it('computes events/s and the time left', () => {
    expect(measure(at, 2)).toMatchObject({ eventsPerSecond: 15_000, etaSeconds: 6, elapsedSeconds: 2 });
    expect(measure(at, 0).etaSeconds).toBeNull();
    expect(measure({ ...at, events: 120_000 }, 0).etaSeconds).toBe(0);
  });

  it('reports at most once per interval of the clock, unless forced', () => {
    const clock = new FakeClock();
    const seen: RebuildProgress[] = [];
    const t = new ProgressTracker(clock, (p) => seen.push(p), 1000);
    t.report(at);
    t.report(at);
    clock.advance(999);
    t.report(at);
    clock.advance(1);
    t.report({ ...at, events: 40_000 });
    t.report(at, true);
    expect(seen.map((p) => [p.events, p.elapsedSeconds])).toEqual([[30_000, 0], [40_000, 1], [30_000, 1]]);
  });

  it('formats one line with rate and ETA', () => {
    expect(formatProgress('flights', measure(at, 2))).toBe(
      'rebuild flights: replay 30000/120000 (25%) 15000 ev/s, ETA 6s, 900 flights, 2.0s elapsed, position 30000',
    );
  });
});
