import type pg from 'pg';
import { localDate, localInstant, nextDate } from './aodbTime.ts';
import { registerRequest, type RegisteredRequest } from './registerRequest.ts';
import { dailyRunToday, nextDayWindow } from './requestWindow.ts';

export interface DailySchedule {
  /** MSGX_REQUEST_PLAN_DAILY_AT, HH:MM airport time. */
  readonly at: string;
  readonly tz: string;
  readonly expireMs: number;
}

export interface DailyOutcome {
  /** The request registered now (null: not due yet, or the day already has its request). */
  readonly registered: RegisteredRequest | null;
  /** When to look again. */
  readonly nextRun: Date;
}

/**
 * The daily plan request: from `at` (airport time) on, the next local day must have one request
 * (req_track.daily_for). A missed time (msgx was down) is caught up at once, never twice.
 */
export async function runDailyRequest(db: pg.Pool, s: DailySchedule, now: Date): Promise<DailyOutcome> {
  const dueAt = dailyRunToday(now, s.at, s.tz);
  const [h, m] = s.at.split(':').map(Number) as [number, number];
  const tomorrowRun = localInstant(nextDate(localDate(now, s.tz)), h, m, s.tz);
  if (now.getTime() < dueAt.getTime()) return { registered: null, nextRun: dueAt };

  const w = nextDayWindow(now, s.tz);
  const exists = await db.query('SELECT 1 FROM req_track WHERE daily_for = $1::date', [w.day]);
  if (exists.rowCount !== 0) return { registered: null, nextRun: tomorrowRun };
  const registered = await registerRequest(db, { from: w.from, to: w.to, now, expireMs: s.expireMs, dailyFor: w.day });
  return { registered, nextRun: tomorrowRun };
}
