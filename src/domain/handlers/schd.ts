/**
 * SCHD handlers.
 *
 *   DNLD, RESP  plan snapshot for the window [min SODT, max SODT] of its records: upsert every
 *               record, delete (reason plan-snapshot) the flights of the window that the message
 *               lacks, ignore records whose operation day is before the message's own date and
 *               never delete flights of such days; always ends with a PlanSnapshotApplied summary.
 *   ADFT        upsert only.
 *   DEL         the flights of its records are deleted (soft, reason plan-delete; interface.md).
 *
 * Deletion by a snapshot is per operation day (interface.md): the flights of a day that the
 * message lacks are deleted only within [earliest SODT, latest SODT] of that day's own records,
 * and a day with a single record deletes nothing else. A RESP that answers one of our plan
 * requests (its RMID names the request, planRequests.ts) deletes within the requested window
 * STDB–STDE instead, whatever its records cover — an empty RESP empties the window.
 *
 * Upsert: a new flight is created with the record's fields and lists (absent → null / empty).
 * An existing flight gets only what the record changes: elements absent from the record leave the
 * flight as it is (see docs/domain.md for why), a deleted flight is restored. The operation day
 * of an existing flight is never recomputed.
 */
import type { Change, PlanSnapshotApplied } from '../changes.ts';
import { fieldsOf } from '../fields.ts';
import type { FlightState } from '../flight.ts';
import { compareFlids } from '../flid.ts';
import { listsOf } from '../lists.ts';
import type { FlightRecord, SchdMessage } from '../message.ts';
import type { RequestedWindow } from '../planRequests.ts';
import { fieldChanges, listChanges } from './diff.ts';
import { stepCounter, type Steps } from '../steps.ts';
import { WorkingSet } from './workingSet.ts';

// 2: the whole interface (new elements, units set as a whole, deletion window per operation day).
// 3: a RESP answering one of our plan requests deletes within the requested window.
export const SCHD_SNAPSHOT_VERSION = 3;
export const SCHD_UPSERT_VERSION = 2;
export const SCHD_DELETE_VERSION = 1;

type Outcome = 'created' | 'updated' | 'unchanged' | 'ignored';

function upsert(ws: WorkingSet, rec: FlightRecord, pastDay: string | null): Outcome {
  const existing = ws.get(rec.flid);
  const day = existing?.operationDay ?? rec.operationDay;
  if (pastDay !== null && day < pastDay) return 'ignored';
  if (existing === undefined) {
    ws.emit({
      type: 'FlightCreated',
      flid: rec.flid,
      operationDay: rec.operationDay,
      fields: fieldsOf(rec.fields),
      lists: listsOf(rec.lists),
    });
    return 'created';
  }
  const changes = [
    ...(existing.deleted ? [{ type: 'FlightRestored' as const, flid: rec.flid }] : []),
    ...fieldChanges(existing, rec.fields),
    ...listChanges(existing, rec.lists),
  ];
  for (const c of changes) ws.emit(c);
  return changes.length > 0 ? 'updated' : 'unchanged';
}

/** [min SODT, max SODT] of the records (ISO instants compare as strings). */
function windowOf(records: readonly FlightRecord[]): { start?: string; end?: string } {
  let start: string | undefined;
  let end: string | undefined;
  for (const { scheduledTime: t } of records) {
    if (start === undefined || t < start) start = t;
    if (end === undefined || t > end) end = t;
  }
  return { start, end };
}

function inWindow(state: FlightState, start: string, end: string): boolean {
  return state.scheduledTime !== null && state.scheduledTime >= start && state.scheduledTime <= end;
}

/** The records of each operation day (the existing flight's day, else the record's own). */
function recordsByDay(ws: WorkingSet, records: readonly FlightRecord[], dayOf: Map<string, string>): Map<string, FlightRecord[]> {
  const out = new Map<string, FlightRecord[]>();
  for (const rec of records) {
    const day = dayOf.get(rec.flid) ?? ws.get(rec.flid)?.operationDay ?? rec.operationDay;
    const list = out.get(day);
    if (list === undefined) out.set(day, [rec]);
    else list.push(rec);
  }
  return out;
}

/**
 * `requested`: the window of our plan request that this RESP answers (requestedWindowFor), if any.
 * In steps (src/domain/steps.ts): a plan has up to 100,000 records.
 */
export function* decideSchdSnapshot(
  flights: ReadonlyMap<string, FlightState>,
  msg: SchdMessage & { styp: 'DNLD' | 'RESP' },
  requested?: RequestedWindow,
): Steps<Change[]> {
  const step = stepCounter();
  const ws = new WorkingSet(flights);
  const today = msg.meta.localDate;
  const summary: PlanSnapshotApplied = {
    type: 'PlanSnapshotApplied', stype: msg.styp, day: today,
    windowStart: null, windowEnd: null, created: 0, updated: 0, deleted: 0, ignored: 0,
  };
  // The operation day of each record's flight as it was before this message (a new flight's is its record's).
  const dayOf = new Map<string, string>();
  for (const rec of msg.records) {
    dayOf.set(rec.flid, ws.get(rec.flid)?.operationDay ?? rec.operationDay);
    if (step()) yield;
  }
  for (const rec of msg.records) {
    const outcome = upsert(ws, rec, today);
    if (outcome !== 'unchanged') summary[outcome] += 1;
    if (step()) yield;
  }
  const windowFor = requested !== undefined ? requestedWindow(summary, requested) : recordsWindows(ws, msg.records, dayOf, summary);
  if (windowFor !== undefined) {
    const inMessage = new Set(msg.records.map((r) => r.flid));
    const doomed: string[] = [];
    for (const flid of ws.flids()) {
      if (step()) yield;
      if (inMessage.has(flid)) continue;
      const state = ws.get(flid);
      if (state === undefined || state.deleted || state.operationDay < today) continue;
      const w = windowFor(state.operationDay);
      if (w === undefined || !inWindow(state, w.start, w.end)) continue;
      doomed.push(flid);
    }
    // In numeric flid order, so the same message always yields the same change list.
    for (const flid of doomed.sort(compareFlids)) {
      ws.emit({ type: 'FlightDeleted', flid, reason: 'plan-snapshot' });
      summary.deleted += 1;
    }
  }
  ws.note(summary);
  return ws.changes;
}

type Window = { start: string; end: string };
/** The deletion window of a flight's operation day (undefined: nothing of that day is deleted). */
type WindowFor = (operationDay: string) => Window | undefined;

/** Our plan request: one window for every day, the summary names the request. */
function requestedWindow(summary: PlanSnapshotApplied, requested: RequestedWindow): WindowFor {
  const w = { start: requested.start, end: requested.end };
  summary.windowStart = w.start;
  summary.windowEnd = w.end;
  summary.request = requested.mgid;
  return () => w;
}

/**
 * Per operation day: [earliest, latest] SODT of that day's own records; a day with one record
 * deletes nothing. The summary carries the whole message's window. Undefined: no records.
 */
function recordsWindows(
  ws: WorkingSet, records: readonly FlightRecord[], dayOf: Map<string, string>, summary: PlanSnapshotApplied,
): WindowFor | undefined {
  const { start, end } = windowOf(records);
  if (start === undefined || end === undefined) return undefined;
  summary.windowStart = start;
  summary.windowEnd = end;
  const windows = new Map<string, Window>();
  for (const [day, recs] of recordsByDay(ws, records, dayOf)) {
    const w = windowOf(recs);
    if (recs.length > 1 && w.start !== undefined && w.end !== undefined) windows.set(day, { start: w.start, end: w.end });
  }
  return (day) => windows.get(day);
}

/** SCHD/DEL: soft-delete the flights of the records (unknown or already deleted ones are left alone). In steps. */
export function* decideSchdDelete(flights: ReadonlyMap<string, FlightState>, msg: SchdMessage): Steps<{ changes: Change[]; unknownFlids: string[] }> {
  const ws = new WorkingSet(flights);
  const unknownFlids: string[] = [];
  const step = stepCounter();
  for (const rec of msg.records) {
    if (step()) yield;
    const state = ws.get(rec.flid);
    if (state === undefined) unknownFlids.push(rec.flid);
    else if (!state.deleted) ws.emit({ type: 'FlightDeleted', flid: rec.flid, reason: 'plan-delete' });
  }
  return { changes: ws.changes, unknownFlids };
}

/** SCHD/ADFT: upsert every record. In steps. */
export function* decideSchdUpsert(flights: ReadonlyMap<string, FlightState>, msg: SchdMessage): Steps<Change[]> {
  const ws = new WorkingSet(flights);
  const step = stepCounter();
  for (const rec of msg.records) {
    upsert(ws, rec, null);
    if (step()) yield;
  }
  return ws.changes;
}
