import { describe, expect, it } from 'vitest';
import {
  formatInZone, isValidTimeZone, localDateOf, parseBodyTime, parseMetaTime,
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

  it('tells valid zones from invalid ones', () => {
    expect(isValidTimeZone(SH)).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
  });
});
