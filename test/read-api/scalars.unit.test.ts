import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatInZone, zoneFormatter } from '../../src/domain/time.ts';
import { parseDateTime, parseDay } from '../../src/read-api/graphql/scalars.ts';

describe('DateTime output', () => {
  it.each(['Asia/Shanghai', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'])(
    'the memoized formatter equals formatInZone in %s, DST edges included',
    (tz) => {
      const format = zoneFormatter(tz);
      fc.assert(
        fc.property(fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }), (ms) => {
          expect(format(ms)).toBe(formatInZone(new Date(ms).toISOString(), tz));
        }),
        { numRuns: 3000 },
      );
      // the minutes around a known transition (Berlin 2025-03-30 01:00Z, New York 2025-11-02 06:00Z)
      for (const edge of [Date.UTC(2025, 2, 30, 1), Date.UTC(2025, 10, 2, 6)]) {
        for (let d = -120_000; d <= 120_000; d += 1000) expect(format(edge + d)).toBe(formatInZone(new Date(edge + d).toISOString(), tz));
      }
    },
  );
});

describe('DateTime and Date input', () => {
  it('accepts ISO-8601 with an offset and returns the UTC instant', () => {
    expect(parseDateTime('2025-03-14T09:30:00+08:00')).toBe('2025-03-14T01:30:00.000Z');
    expect(parseDateTime('2025-03-14T01:30:00Z')).toBe('2025-03-14T01:30:00.000Z');
  });
  it.each(['2025-03-14T09:30:00', '2025-03-14', 'yesterday', '2025-13-01T00:00:00Z', 42])('refuses %s with BAD_USER_INPUT', (v) => {
    expect(() => parseDateTime(v)).toThrow(expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }));
  });
  it('accepts real days only', () => {
    expect(parseDay('2024-02-29')).toBe('2024-02-29');
    for (const bad of ['2025-02-29', '2025-3-14', '14.03.2025', '']) expect(() => parseDay(bad)).toThrow(/Date must be YYYY-MM-DD/);
  });
});
