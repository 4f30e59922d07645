import { wallClockToEpochMs } from '../../domain/time.ts';
import { localDate, localInstant, nextDate } from './aodbTime.ts';

/**
 * A window bound from the command line: ISO-8601 with a zone (`2025-03-15T00:00:00+08:00`, `…Z`)
 * is that instant; without a zone (`2025-03-15T06:30`, `2025-03-15 06:30`, `2025-03-15`) it is
 * airport local time. Returns null when the text is neither.
 */
export function parseWindowTime(text: string, tz: string): Date | null {
  const t = text.trim();
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(t) && /^\d{4}-\d{2}-\d{2}T/.test(t)) {
    const ms = Date.parse(t);
    return Number.isNaN(ms) ? null : new Date(ms);
  }
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(t);
  if (!m) return null;
  const w = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +(m[4] ?? 0), minute: +(m[5] ?? 0), second: +(m[6] ?? 0) };
  const check = new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second));
  if (
    check.getUTCFullYear() !== w.year || check.getUTCMonth() !== w.month - 1 || check.getUTCDate() !== w.day ||
    check.getUTCHours() !== w.hour || check.getUTCMinutes() !== w.minute
  ) return null;
  return new Date(wallClockToEpochMs(w, tz));
}

export interface DayWindow {
  /** The local operation day asked for. */
  readonly day: string;
  readonly from: Date;
  readonly to: Date;
}

/** The whole local day after `now` (00:00 … 23:59 airport time): what the daily request asks for. */
export function nextDayWindow(now: Date, tz: string): DayWindow {
  const day = nextDate(localDate(now, tz));
  return { day, from: localInstant(day, 0, 0, tz), to: localInstant(day, 23, 59, tz) };
}

/** When the daily request for the day after `now` is due: today at `hhmm` (HH:MM) airport time. */
export function dailyRunToday(now: Date, hhmm: string, tz: string): Date {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return localInstant(localDate(now, tz), h, m, tz);
}
