/**
 * The `history` figure's log: whole weeks at the week fixture's density (dayLog.ts: 5 operation days
 * a week of 2,000 flights, a DNLD plan with full lists and ~20 FLOPs per flight, ~41k decisions a
 * day), built once and extended in place (1 week, then 4, then 13: only the new days are decided).
 * Days are decided in worker threads (weekDay.ts `decideHistoryDay`: the days shifted by 7 days a
 * week, flids of their own) and bulk-appended, in day order, with what the pump would have written
 * around them:
 *   - the history sweep: when a day's plan moves the latest operation day, FlightsArchived decisions
 *     (SWEEP_CHUNK flids each) for the flights of days before the keep window
 *     (MSGX_HISTORY_KEEP_DAYS, 30 by default) right behind it, as the pump appends them — so the
 *     write model holds the keep window's flights, not the whole history;
 *   - every message's `inbox_message` row (its raw XML, ingested at its recorded time) and its
 *     terminal row with the write-back done — in `proc_state_hst`, archived a day after it was
 *     decided, as a running writer's hourly job has it (docs/operations.md "Jobs"): the log is
 *     months old by the wall clock, so `proc_state` holds only what the bench adds. (With every
 *     row left in `proc_state`, each start's housekeeping moved millions of rows beside the
 *     measured takeover, and the planner's reads of the `msg_id` index ends then stepped over the
 *     rows it had deleted: docs/scaling.md "Measured over weeks".)
 * The outbox is "delivered" (its checkpoint at the head).
 */
import pg from 'pg';
import { SWEEP_CHUNK, sweepCutoff } from '../../src/domain/archive.ts';
import { compareFlids } from '../../src/domain/flid.ts';
import { createBenchPg, type BenchPg } from './databases.ts';
import { decideInWorkers } from './dayLog.ts';
import { progress } from './progress.ts';
import { nowMs } from './stats.ts';
import { DAYS, type DayRows } from './weekDay.ts';

const CHUNK = 5000;
/** Days decided ahead of the inserts: bounds the decided rows (and raw XML) held in memory. */
const AHEAD = 4;
export const KEEP_DAYS = 30;

export interface HistoryLog {
  readonly db: BenchPg;
  weeks: number;
  days: number;
  /** Decisions in the log (messages' and the sweeps'). */
  events: number;
  messages: number;
  flightsCreated: number;
  /** Flights the write model holds at the head (created, not yet swept). */
  liveFlights: number;
  head: string;
  /** Seconds spent building (deciding + inserting), per extension. */
  readonly buildSeconds: number[];
}

interface Row {
  position: number;
  msgId: number | null;
  kind: string;
  handler: string | null;
  handlerVersion: number | null;
  flids: string;
  payload: string;
  recordedAt: string;
}

export class HistoryBuilder {
  private readonly dayFlids = new Map<string, string[]>();
  private latestDay: string | null = null;

  private constructor(readonly log: HistoryLog) {}

  static async create(): Promise<HistoryBuilder> {
    const db = await createBenchPg('history');
    return new HistoryBuilder({ db, weeks: 0, days: 0, events: 0, messages: 0, flightsCreated: 0, liveFlights: 0, head: '0', buildSeconds: [] });
  }

  /** Append the days of weeks [log.weeks, weeks). */
  async extendTo(weeks: number): Promise<HistoryLog> {
    const log = await this.extendToDays(weeks * DAYS.length);
    log.weeks = weeks;
    return log;
  }

  /** Append history days [log.days, days) (a week has DAYS.length of them). */
  async extendToDays(days: number): Promise<HistoryLog> {
    const log = this.log;
    const t0 = nowMs();
    const from = log.days;
    const to = days;
    const c = new pg.Client({ connectionString: log.db.url, application_name: 'msgx-bench-history' });
    await c.connect();
    try {
      await c.query('SET synchronous_commit TO off');
      for (let start = from; start < to; start += AHEAD) {
        const jobs = Array.from({ length: Math.min(AHEAD, to - start) }, (_, k) => ({ history: start + k }));
        for (const pending of decideInWorkers(jobs)) await this.appendDay(c, await pending);
        progress(`history: ${log.days} days logged (${log.events} decisions, ${log.liveFlights} live flights)`);
      }
      await c.query('UPDATE pipeline_lock SET last_position = $1::bigint, updated_at = now() WHERE id = 1', [log.head]);
      await c.query(
        `INSERT INTO projection_checkpoint (name, position) VALUES ('outbox', $1::bigint)
         ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position`,
        [log.head],
      );
      for (const t of ['decision_event', 'inbox_message', 'proc_state_hst']) await c.query(`ANALYZE ${t}`);
    } finally {
      await c.end();
    }
    log.weeks = days / DAYS.length;
    log.buildSeconds.push((nowMs() - t0) / 1000);
    return log;
  }

  private async appendDay(c: pg.Client, day: DayRows): Promise<void> {
    const log = this.log;
    const rows: Row[] = [];
    const firstPosition = log.events + 1;
    const firstMsg = log.messages + 1;
    for (let i = 0; i < day.kinds.length; i++) {
      rows.push({
        position: firstPosition + rows.length, msgId: log.messages + i + 1, kind: day.kinds[i]!, handler: day.handlers[i]!,
        handlerVersion: day.handlerVersions[i]!, flids: day.flids[i]!, payload: day.payloads[i]!, recordedAt: day.recordedAt[i]!,
      });
      // The day's plan (its first decision) moves the latest operation day: the sweep right behind it.
      if (i === 0) for (const sweep of this.sweepsFor(day.day, day.recordedAt[0]!)) rows.push({ ...sweep, position: firstPosition + rows.length });
    }
    for (let i = 0; i < rows.length; i += CHUNK) {
      const part = rows.slice(i, i + CHUNK);
      await c.query(
        `INSERT INTO decision_event (position, msg_id, kind, handler, handler_version, flids, payload, recorded_at)
         SELECT d.position, d.msg_id, d.kind, d.handler, d.handler_version,
                ARRAY(SELECT jsonb_array_elements_text(d.flids)), d.payload, d.recorded_at
           FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[], $8::timestamptz[])
                AS d(position, msg_id, kind, handler, handler_version, flids, payload, recorded_at)`,
        [
          part.map((r) => r.position), part.map((r) => r.msgId), part.map((r) => r.kind), part.map((r) => r.handler),
          part.map((r) => r.handlerVersion), part.map((r) => r.flids), part.map((r) => r.payload), part.map((r) => r.recordedAt),
        ],
      );
    }
    const raws = day.raws ?? [];
    for (let i = 0; i < raws.length; i += CHUNK) {
      const end = Math.min(i + CHUNK, raws.length);
      await c.query(
        `INSERT INTO inbox_message (msg_id, ingested_at, received_at, raw_xml)
         SELECT m.msg_id, m.at, m.at, m.raw FROM unnest($1::bigint[], $2::timestamptz[], $3::text[]) AS m(msg_id, at, raw)`,
        [Array.from({ length: end - i }, (_, k) => firstMsg + i + k), day.recordedAt.slice(i, end), raws.slice(i, end)],
      );
    }
    // Every message decided and written back (as figure 8 gives the week fixture), then archived.
    await c.query(
      `INSERT INTO proc_state_hst (msg_id, state, attempts, decided_position, backfill_state, backfill_attempts, backfill_status, created_at, updated_at, archived_at)
       SELECT d.msg_id, CASE d.kind WHEN 'Applied' THEN 'SUCCEEDED' WHEN 'Skipped' THEN 'SKIPPED' ELSE 'DEAD' END, 1, d.position, 'DONE', 1,
              CASE d.kind WHEN 'Applied' THEN 'PROCESSED' WHEN 'Skipped' THEN 'SKIPPED' ELSE 'DEAD' END, d.recorded_at, d.recorded_at,
              d.recorded_at + interval '1 day'
         FROM decision_event d WHERE d.position >= $1::bigint AND d.msg_id IS NOT NULL`,
      [firstPosition],
    );
    this.dayFlids.set(day.day, day.allFlids ?? []);
    log.events += rows.length;
    log.messages += day.kinds.length;
    log.flightsCreated += day.flights;
    log.liveFlights = [...this.dayFlids.values()].reduce((n, f) => n + f.length, 0);
    log.days += 1;
    log.head = String(log.events);
  }

  /** The pump's sweep (src/domain/archive.ts sweepOnAdvance) when `day` becomes the latest operation day. */
  private sweepsFor(day: string, recordedAt: string): Omit<Row, 'position'>[] {
    if (this.latestDay !== null && day <= this.latestDay) return [];
    this.latestDay = day;
    const cutoff = sweepCutoff(day, KEEP_DAYS);
    const flids: string[] = [];
    for (const [d, f] of this.dayFlids) {
      if (d >= cutoff) continue;
      flids.push(...f);
      this.dayFlids.delete(d);
    }
    flids.sort(compareFlids);
    const out: Omit<Row, 'position'>[] = [];
    for (let i = 0; i < flids.length; i += SWEEP_CHUNK) {
      const change = { type: 'FlightsArchived', flids: flids.slice(i, i + SWEEP_CHUNK), beforeDay: cutoff };
      out.push({
        msgId: null, kind: 'FlightsArchived', handler: null, handlerVersion: null, flids: JSON.stringify(change.flids),
        payload: JSON.stringify({ changes: [change], keepDays: KEEP_DAYS, latestDay: day }), recordedAt,
      });
    }
    return out;
  }
}
