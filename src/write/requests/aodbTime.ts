import { wallClockAt, wallClockToEpochMs, type WallClock } from '../../domain/time.ts';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** An instant as AODB body time `ddMMMyyHHmm` in the airport zone (e.g. `15MAR250000`). */
export function formatAodbTime(at: Date, tz: string): string {
  const w = wallClockAt(at.getTime(), tz);
  return `${pad(w.day)}${MONTHS[w.month - 1]}${pad(w.year % 100)}${pad(w.hour)}${pad(w.minute)}`;
}

/** An instant as META DTTM `yyyyMMddHHmmss` in the airport zone. */
export function formatCompactTime(at: Date, tz: string): string {
  const w = wallClockAt(at.getTime(), tz);
  return `${pad(w.year, 4)}${pad(w.month)}${pad(w.day)}${pad(w.hour)}${pad(w.minute)}${pad(w.second)}`;
}

/** The local date `YYYY-MM-DD` of an instant in the airport zone. */
export function localDate(at: Date, tz: string): string {
  const w = wallClockAt(at.getTime(), tz);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

/** The instant at which the airport zone shows `date` (YYYY-MM-DD) at hour:minute. */
export function localInstant(date: string, hour: number, minute: number, tz: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const w: WallClock = { year: y, month: m, day: d, hour, minute, second: 0 };
  return new Date(wallClockToEpochMs(w, tz));
}

/** The calendar date after `date` (YYYY-MM-DD). */
export function nextDate(date: string): string {
  const t = Date.parse(`${date}T00:00:00Z`) + 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}
