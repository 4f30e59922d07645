import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatInZone, formatOutward, isValidTimeZone, localDateOf, parseBodyTime, parseMetaTime, wallClockAt, wallClockToEpochMs, type WallClock,
} from '../../src/domain/time.ts';

const SH = 'Asia/Shanghai';

describe('body times', () => {
  it('reads ddMMMyyHHmm as local airport time', () => {
    expect(parseBodyTime('14MAR250930', SH)).toBe('2025-03-14T01:30:00.000Z');
  });

  it('reads yyyyMMddHHmmss as local airport time', () => {
    expect(parseBodyTime('20250314093015', SH)).toBe('2025-03-14T01:30:15.000Z');
  });

  it('accepts month names in any case', () => {
    expect(parseBodyTime('14mar250930', SH)).toBe('2025-03-14T01:30:00.000Z');
    expect(parseBodyTime('01Dec251200', SH)).toBe('2025-12-01T04:00:00.000Z');
  });

  it.each([
    ['not-a-time'], [''], ['14XYZ250930'], ['31FEB250930'], ['29FEB250930'], ['31APR250930'], ['14MAR252400'],
    ['14MAR250960'], ['00MAR250930'], ['20251314093000'], ['20250230093000'], ['20250314250000'], ['2025031409300'],
    ['14MAR2509300'], [' 14MAR250930'],
  ])('rejects %j', (text) => {
    expect(parseBodyTime(text, SH)).toBeNull();
  });

  it('knows leap years', () => {
    expect(parseBodyTime('29FEB240000', SH)).toBe('2024-02-28T16:00:00.000Z');
  });

  it('converts with the zone rules, not a fixed offset (winter vs summer)', () => {
    expect(parseBodyTime('14JAN250930', 'Europe/Berlin')).toBe('2025-01-14T08:30:00.000Z');
    expect(parseBodyTime('14JUL250930', 'Europe/Berlin')).toBe('2025-07-14T07:30:00.000Z');
    expect(parseBodyTime('14MAR250930', 'UTC')).toBe('2025-03-14T09:30:00.000Z');
  });

  it('moves a wall time inside a DST gap forward and takes the earlier of an overlap', () => {
    // 2025-03-09 02:30 does not exist in New York (02:00 → 03:00): read as 03:30 EDT.
    expect(parseBodyTime('09MAR250230', 'America/New_York')).toBe('2025-03-09T07:30:00.000Z');
    // 2025-11-02 01:30 happens twice: the first one (EDT).
    expect(parseBodyTime('02NOV250130', 'America/New_York')).toBe('2025-11-02T05:30:00.000Z');
    expect(parseBodyTime('26OCT250230', 'Europe/Berlin')).toBe('2025-10-26T00:30:00.000Z');
  });
});

describe('META time', () => {
  it('is yyyyMMddHHmmss only', () => {
    expect(parseMetaTime('20250314091207', SH)).toBe('2025-03-14T01:12:07.000Z');
    expect(parseMetaTime('14MAR250930', SH)).toBeNull();
    expect(parseMetaTime('20250314996000', SH)).toBeNull();
  });
});

describe('local dates and rendering', () => {
  it('gives the local date of an instant', () => {
    expect(localDateOf('2025-03-13T16:00:00.000Z', SH)).toBe('2025-03-14');
    expect(localDateOf('2025-03-13T15:59:59.999Z', SH)).toBe('2025-03-13');
    expect(localDateOf('2025-03-14T03:00:00.000Z', 'America/New_York')).toBe('2025-03-13');
  });

  it('renders an instant in a zone with its offset', () => {
    expect(formatInZone('2025-03-14T01:30:00.000Z', SH)).toBe('2025-03-14T09:30:00+08:00');
    expect(formatInZone('2025-07-14T13:30:00.000Z', 'America/New_York')).toBe('2025-07-14T09:30:00-04:00');
    expect(formatInZone('2025-01-14T14:30:00.000Z', 'America/New_York')).toBe('2025-01-14T09:30:00-05:00');
    expect(formatInZone('2025-01-14T14:30:00.000Z', 'Asia/Kolkata')).toBe('2025-01-14T20:00:00+05:30');
  });

  it('formatOutward (memoized by text) is formatInZone, milliseconds and DST included, asked twice', () => {
    for (const tz of [SH, 'America/New_York', 'Europe/Berlin']) {
      fc.assert(
        fc.property(fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }), (ms) => {
          const iso = new Date(ms).toISOString();
          expect(formatOutward(iso, tz)).toBe(formatInZone(iso, tz));
          expect(formatOutward(iso, tz)).toBe(formatInZone(iso, tz));
        }),
        { numRuns: 2000 },
      );
    }
    expect(formatOutward('2025-03-14T01:30:00.120Z', SH)).toBe('2025-03-14T09:30:00.120+08:00');
  });

  it('tells valid zones from invalid ones', () => {
    expect(isValidTimeZone(SH)).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
  });
});

// The conversions cache the zone offset per UTC hour; checked here against Intl asked every time.
describe('zone conversions agree with Intl at every second', { timeout: 60_000 }, () => {
  const ZONES = [
    SH, 'America/New_York', 'Europe/London', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu',
    'America/St_Johns', 'Pacific/Apia', 'Africa/Casablanca', 'Asia/Kolkata', 'America/Sao_Paulo', 'UTC',
  ];
  const formatters = new Map(ZONES.map((tz) => [tz, new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  })]));
  const intlWallClock = (ms: number, tz: string): WallClock => {
    const parts = formatters.get(tz)!.formatToParts(new Date(ms));
    const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value);
    return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
  };
  const asUtc = (w: WallClock): number => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  // The first implementation: earlier instant in an overlap, offset from before a gap.
  const intlInstant = (w: WallClock, tz: string): number => {
    const target = asUtc(w);
    const offset = (ms: number): number => asUtc(intlWallClock(ms, tz)) - Math.floor(ms / 1000) * 1000;
    const before = target - offset(target - 86_400_000);
    const after = target - offset(target + 86_400_000);
    const valid = [before, after].filter((ms) => asUtc(intlWallClock(ms, tz)) === target);
    return valid.length > 0 ? Math.min(...valid) : before;
  };
  const zone = fc.constantFrom(...ZONES);
  // 1900-2100, with half the instants within an hour of a DST change of 2025 or a historic one.
  const epochMs = fc.oneof(
    fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }),
    fc.tuple(fc.constantFrom(Date.UTC(2025, 2, 9, 7), Date.UTC(2025, 10, 2, 6), Date.UTC(2025, 2, 30, 1), Date.UTC(2025, 9, 26, 1),
      Date.UTC(2025, 3, 5, 15), Date.UTC(2011, 11, 30, 10), Date.UTC(1986, 4, 4, 18), Date.UTC(1927, 10, 1)),
    fc.integer({ min: -7_200_000, max: 7_200_000 })).map(([t, d]) => t + d),
  );

  it('wallClockAt', () => {
    fc.assert(fc.property(epochMs, zone, (ms, tz) => {
      expect(wallClockAt(ms, tz)).toEqual(intlWallClock(ms, tz));
    }), { numRuns: 4000 });
  });

  it('wallClockToEpochMs (gaps and overlaps included)', () => {
    fc.assert(fc.property(epochMs, zone, fc.integer({ min: 0, max: 3 }), (ms, tz, shift) => {
      const w = intlWallClock(ms, tz);
      // Also wall times shifted by up to 3 hours, so some fall into gaps.
      const shifted = { ...w, hour: (w.hour + shift) % 24 };
      expect(wallClockToEpochMs(shifted, tz)).toBe(intlInstant(shifted, tz));
    }), { numRuns: 4000 });
  });
});
