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

// Caches, not state: one formatter per zone (constructing Intl formatters is slow), the zone's
// offset per UTC hour (formatToParts costs ~15µs; a day of traffic needs a few dozen hours), and
// body times by text per zone (a plan snapshot repeats the same times thousands of times).
const formatters = new Map<string, Intl.DateTimeFormat>();
const hourOffsets = new Map<string, Map<number, number | null>>();
const bodyTimes = new Map<string, Map<string, Instant | null>>();
const MEMO_LIMIT = 50_000;

function zoneCache<K, T>(caches: Map<string, Map<K, T>>, tz: string): Map<K, T> {
  let cache = caches.get(tz);
  if (cache === undefined) {
    cache = new Map();
    caches.set(tz, cache);
  }
  return cache;
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

const HOUR = 3_600_000;
const DAY = 86_400_000;

function readWallClock(epochMs: number, tz: string): WallClock {
  const parts = formatterFor(tz).formatToParts(new Date(epochMs));
  return {
    year: partOf(parts, 'year'), month: partOf(parts, 'month'), day: partOf(parts, 'day'),
    hour: partOf(parts, 'hour'), minute: partOf(parts, 'minute'), second: partOf(parts, 'second'),
  };
}

function partOf(parts: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes): number {
  return Number(parts.find((p) => p.type === type)?.value ?? NaN);
}

function wallAsUtcMs(w: WallClock): number {
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
}

/** Wall clock minus UTC at the whole second `sec`, from Intl. */
function exactOffset(sec: number, tz: string): number {
  return wallAsUtcMs(readWallClock(sec, tz)) - sec;
}

/**
 * The zone's offset (ms, wall clock minus UTC) at `epochMs`, to the second. Cached per UTC hour
 * when the offset is the same at the hour's first and last second (no transition in between; tz
 * data has no zone that changes twice within one hour); an hour with a transition asks Intl for
 * every second it is asked about.
 */
function offsetAt(epochMs: number, tz: string): number {
  const sec = Math.floor(epochMs / 1000) * 1000;
  const hour = Math.floor(sec / HOUR);
  const cache = zoneCache(hourOffsets, tz);
  let offset = cache.get(hour);
  if (offset === undefined) {
    const first = exactOffset(hour * HOUR, tz);
    offset = first === exactOffset(hour * HOUR + HOUR - 1000, tz) ? first : null;
    if (cache.size >= MEMO_LIMIT) cache.clear();
    cache.set(hour, offset);
  }
  return offset ?? exactOffset(sec, tz);
}

/** The wall clock shown in `tz` at `epochMs`. */
export function wallClockAt(epochMs: number, tz: string): Readonly<WallClock> {
  const d = new Date(Math.floor(epochMs / 1000) * 1000 + offsetAt(epochMs, tz));
  return {
    year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(),
    hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(),
  };
}

/**
 * The instant at which the wall clock in `tz` shows `w`. In a DST overlap the earlier instant is
 * chosen; in a DST gap (a wall time that does not exist) the offset from before the transition is
 * used, which moves the time forward by the gap — both as most schedulers do.
 */
export function wallClockToEpochMs(w: WallClock, tz: string): number {
  const target = wallAsUtcMs(w);
  const before = target - offsetAt(target - DAY, tz);
  const after = target - offsetAt(target + DAY, tz);
  if (shows(before, target, tz)) return shows(after, target, tz) ? Math.min(before, after) : before;
  return shows(after, target, tz) ? after : before;
}

/** Whether the wall clock in `tz` at `ms` reads `target` (a wall clock as UTC ms). */
function shows(ms: number, target: number, tz: string): boolean {
  return Math.floor(ms / 1000) * 1000 + offsetAt(ms, tz) === target;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

function isValidWallClock(w: WallClock): boolean {
  if (w.year < 1900 || w.year > 2999 || w.month < 1 || w.month > 12) return false;
  const daysInMonth = w.month === 2 && isLeapYear(w.year) ? 29 : DAYS_IN_MONTH[w.month - 1]!;
  return w.day >= 1 && w.day <= daysInMonth && w.hour <= 23 && w.minute <= 59 && w.second <= 59;
}

const COMPACT = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/** `yyyyMMddHHmmss` → wall clock, or null when the text is not exactly that or not a real date. */
export function parseCompactDateTime(text: string): WallClock | null {
  const m = COMPACT.exec(text);
  if (!m) return null;
  const w = {
    year: Number(m[1]), month: Number(m[2]), day: Number(m[3]),
    hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6]),
  };
  return isValidWallClock(w) ? w : null;
}

/** `ddMMMyyHHmm` (e.g. `14MAR250930`, month name case-insensitive, year 20yy) → wall clock, or null. */
const AODB = /^(\d{2})([A-Za-z]{3})(\d{2})(\d{2})(\d{2})$/;

export function parseAodbDateTime(text: string): WallClock | null {
  const m = AODB.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toUpperCase()) + 1;
  if (month === 0) return null;
  const w = { year: 2000 + Number(m[3]), month, day: Number(m[1]), hour: Number(m[4]), minute: Number(m[5]), second: 0 };
  return isValidWallClock(w) ? w : null;
}

/** A body time in either accepted format, read as local time in `tz` → UTC instant, or null. */
export function parseBodyTime(text: string, tz: string): Instant | null {
  const cache = zoneCache(bodyTimes, tz);
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const w = parseAodbDateTime(text) ?? parseCompactDateTime(text);
  const instant = w ? new Date(wallClockToEpochMs(w, tz)).toISOString() : null;
  if (cache.size >= MEMO_LIMIT) cache.clear();
  cache.set(text, instant);
  return instant;
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
  // Milliseconds only when there are any (recorded instants have them, body times never do).
  const millis = ms - Math.floor(ms / 1000) * 1000;
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}` +
    (millis === 0 ? '' : `.${pad(millis, 3)}`) + `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const QUARTER_HOUR = 900_000;
const zoneFormatters = new Map<string, (ms: number) => string>();

/**
 * How every outward instant is shown (interface.md: GraphQL's `DateTime`, the Kafka `msg`/`schd`
 * records and their NDJSON files, `toFlightView(…, { tz })`): `formatInZone`, memoized per quarter
 * hour — every zone changes its offset only at quarter-hour instants, so the offset found once holds
 * for the whole bucket (a board renders tens of thousands of instants; Intl per instant would
 * dominate). One formatter per zone, shared by all callers.
 */
export function zoneFormatter(tz: string): (ms: number) => string {
  const known = zoneFormatters.get(tz);
  if (known !== undefined) return known;
  const offsets = new Map<number, string>();
  const format = (ms: number): string => {
    const bucket = Math.floor(ms / QUARTER_HOUR);
    let offset = offsets.get(bucket);
    if (offset === undefined) {
      if (offsets.size >= 100_000) offsets.clear();
      offset = formatInZone(new Date(bucket * QUARTER_HOUR).toISOString(), tz).slice(19); // "+08:00"
      offsets.set(bucket, offset);
    }
    const sign = offset.startsWith('-') ? -1 : 1;
    const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
    const seconds = Math.floor(ms / 1000) * 1000;
    // Milliseconds are kept when there are any (interface.md: recordedAt keeps them, so that
    // flight(asOf: <a decision's recordedAt>) includes that decision); whole seconds print as before.
    const millis = ms - seconds;
    const local = new Date(seconds + minutes * 60_000).toISOString().slice(0, 19);
    return (millis === 0 ? local : `${local}.${String(millis).padStart(3, '0')}`) + offset;
  };
  zoneFormatters.set(tz, format);
  return format;
}

const outwardTexts = new Map<string, Map<Instant, string>>();
/** A day has 1,440 minutes; recordedAt instants are all distinct and just cycle through (a few MB at most). */
const OUTWARD_MEMO_LIMIT = 20_000;

/**
 * An instant as every outward time shows it: local time in `tz` with its offset (`zoneFormatter`).
 * Memoized by text: a plan's thousands of flights share a few hundred distinct minutes, and the
 * outbox renders every one of them (a lookup is ~25× cheaper than Date.parse + format).
 */
export function formatOutward(instant: Instant, tz: string): string {
  const memo = zoneCache(outwardTexts, tz);
  let text = memo.get(instant);
  if (text === undefined) {
    if (memo.size >= OUTWARD_MEMO_LIMIT) memo.clear();
    text = zoneFormatter(tz)(Date.parse(instant));
    memo.set(instant, text);
  }
  return text;
}
