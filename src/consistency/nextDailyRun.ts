import { wallClockAt, wallClockToEpochMs } from '../domain/time.ts';

/**
 * The first instant strictly after `now` whose wall clock in `tz` reads `at` (HH:MM). Pure.
 * A day whose HH:MM falls into a DST gap runs at the moved-forward instant (wallClockToEpochMs).
 */
export function nextDailyRun(now: Date, at: string, tz: string): Date {
  const [hour, minute] = at.split(':').map(Number) as [number, number];
  const today = wallClockAt(now.getTime(), tz);
  for (let add = 0; add <= 2; add++) {
    // Date.UTC normalizes day overflow (31 + 1 → the 1st of the next month).
    const d = new Date(Date.UTC(today.year, today.month - 1, today.day + add));
    const ms = wallClockToEpochMs(
      { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour, minute, second: 0 },
      tz,
    );
    if (ms > now.getTime()) return new Date(ms);
  }
  throw new Error(`no ${at} after ${now.toISOString()} in ${tz}`); // unreachable: a day always has one
}
