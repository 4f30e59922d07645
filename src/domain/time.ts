/**
 * Airport local time <-> UTC instants, generically for any IANA zone (via Intl, no hardcoded
 * offsets). Message bodies carry local airport time; the domain stores UTC instants
 * (`new Date(x).toISOString()` form) and local dates (`YYYY-MM-DD`).
 */
import type { Instant } from './flight.ts';

export const DEFAULT_AIRPORT_TZ = 'Asia/Shanghai';

/** A local wall-clock reading, months 1-12. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

// Caches, not state: one formatter per zone (constructing Intl formatters is slow), and memoized
// conversions (formatToParts costs ~15µs; a day's plan repeats the same few thousand minutes).
const formatters = new Map<string, Intl.DateTimeFormat>();
const wallClocks = new Map<string, Readonly<WallClock>>();
const instants = new Map<string, number>();
const MEMO_LIMIT = 50_000;

function memo<T>(cache: Map<string, T>, key: string, compute: () => T): T {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const value = compute();
  if (cache.size >= MEMO_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

function formatterFor(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

export function isValidTimeZone(tz: string): boolean {
  try {
    formatterFor(tz);
    return true;
  } catch {
    return false; // RangeError: unknown zone — the answer to the question, nothing to rethrow
  }
}

/** The wall clock shown in `tz` at `epochMs`. */
export function wallClockAt(epochMs: number, tz: string): Readonly<WallClock> {
  return memo(wallClocks, `${tz}|${Math.floor(epochMs / 1000)}`, () => Object.freeze(readWallClock(epochMs, tz)));
}

function readWallClock(epochMs: number, tz: string): WallClock {
  const parts = formatterFor(tz).formatToParts(new Date(epochMs));
  const get = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((p) => p.type === type)?.value ?? NaN);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

function wallAsUtcMs(w: WallClock): number {
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
}

/**
 * The instant at which the wall clock in `tz` shows `w`. In a DST overlap the earlier instant is
 * chosen; in a DST gap (a wall time that does not exist) the offset from before the transition is
 * used, which moves the time forward by the gap — both as most schedulers do.
 */
export function wallClockToEpochMs(w: WallClock, tz: string): number {
  const target = wallAsUtcMs(w);
  return memo(instants, `${tz}|${target}`, () => findInstant(target, tz));
}

function findInstant(target: number, tz: string): number {
  const DAY = 86_400_000;
  const offsetAt = (ms: number): number => wallAsUtcMs(wallClockAt(ms, tz)) - Math.floor(ms / 1000) * 1000;
  const before = target - offsetAt(target - DAY);
  const after = target - offsetAt(target + DAY);
  const shows = (ms: number): boolean => wallAsUtcMs(wallClockAt(ms, tz)) === target;
  const valid = [before, after].filter(shows);
  return valid.length > 0 ? Math.min(...valid) : before;
}

function isValidWallClock(w: WallClock): boolean {
  if (w.year < 1900 || w.year > 2999 || w.month < 1 || w.month > 12) return false;
  const daysInMonth = new Date(Date.UTC(w.year, w.month, 0)).getUTCDate();
  return w.day >= 1 && w.day <= daysInMonth && w.hour <= 23 && w.minute <= 59 && w.second <= 59;
}

/** `yyyyMMddHHmmss` → wall clock, or null when the text is not exactly that or not a real date. */
export function parseCompactDateTime(text: string): WallClock | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const w = { year: y, month: mo, day: d, hour: h, minute: mi, second: s };
  return isValidWallClock(w) ? w : null;
}

/** `ddMMMyyHHmm` (e.g. `14MAR250930`, month name case-insensitive, year 20yy) → wall clock, or null. */
export function parseAodbDateTime(text: string): WallClock | null {
  const m = /^(\d{2})([A-Za-z]{3})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toUpperCase()) + 1;
  if (month === 0) return null;
  const w = { year: 2000 + Number(m[3]), month, day: Number(m[1]), hour: Number(m[4]), minute: Number(m[5]), second: 0 };
  return isValidWallClock(w) ? w : null;
}

/** A body time in either accepted format, read as local time in `tz` → UTC instant, or null. */
export function parseBodyTime(text: string, tz: string): Instant | null {
  const w = parseAodbDateTime(text) ?? parseCompactDateTime(text);
  return w ? new Date(wallClockToEpochMs(w, tz)).toISOString() : null;
}

/** META DTTM (`yyyyMMddHHmmss` only), local time in `tz` → UTC instant, or null. */
export function parseMetaTime(text: string, tz: string): Instant | null {
  const w = parseCompactDateTime(text);
  return w ? new Date(wallClockToEpochMs(w, tz)).toISOString() : null;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Local date (`YYYY-MM-DD`) in `tz` of an instant. */
export function localDateOf(instant: Instant, tz: string): string {
  const w = wallClockAt(Date.parse(instant), tz);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

/** An instant rendered as ISO-8601 local time in `tz` with its offset, e.g. `2025-03-14T09:30:00+08:00`. */
export function formatInZone(instant: Instant, tz: string): string {
  const ms = Date.parse(instant);
  const w = wallClockAt(ms, tz);
  const offsetMin = Math.round((wallAsUtcMs(w) - Math.floor(ms / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
