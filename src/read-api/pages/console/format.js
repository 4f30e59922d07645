// How the console shows flights: airport-local HH:MM (the API already gives every instant with the
// airport's offset, so the wall clock is in the text), a day marker when a time falls on another
// day than the flight's operation day, and the status as one word (docs/operations.md, "Console").
import { h } from '/assets/vendor/preact.mjs';

/** `2025-03-14T10:40:00+08:00` → `10:40`. */
export const hhmm = (iso) => (iso ? iso.slice(11, 16) : '');

/** Days between the instant's local date and `day` (`YYYY-MM-DD`): 0, +1, -1… */
export function dayOffset(iso, day) {
  if (!iso || !day) return 0;
  return Math.round((Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) - Date.parse(`${day}T00:00:00Z`)) / 86_400_000);
}

/** A local time with its day marker, the full instant in its tooltip. */
export function localTime(iso, day) {
  if (!iso) return null;
  const off = dayOffset(iso, day);
  return h('time', { datetime: iso, title: iso },
    hhmm(iso),
    off ? h('span', { class: 'day-mark', title: `on ${iso.slice(0, 10)}` }, ` ${off > 0 ? '+' : '−'}${Math.abs(off)}d`) : null);
}

/** A local date-time for instants that are not on a flight's day (decisions, messages). */
export const stamp = (iso) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : '');

/** Minutes the flight is late: estimate (else actual) against schedule; null when unknown. */
export function delayMinutes(f) {
  const late = f.estimatedTime || f.actualTime;
  if (!late || !f.scheduledTime) return null;
  return Math.round((Date.parse(late) - Date.parse(f.scheduledTime)) / 60_000);
}

/** Late by this much or more reads as "delayed". */
export const DELAYED_FROM_MINUTES = 5;

const arrived = (f) => f.chocks?.some((c) => c.onOff === 'ON') || f.stands?.some((s) => s.actualStart);

/**
 * One word for the flight, the most decisive first: deleted, cancelled, diverted, returned,
 * departed / arrived / landed, boarding, delayed +N min, scheduled. `late` is the delay shown beside
 * a word that is not "delayed".
 */
export function flightStatus(f) {
  const late = delayMinutes(f);
  const lateBy = late !== null && late >= DELAYED_FROM_MINUTES ? late : null;
  const word = (key, text = key) => ({ key, text, late: lateBy });
  if (f.deleted) return word('deleted');
  if (f.cancelled) return word('cancelled');
  if (f.diversionAirport) return word('diverted', `diverted ${f.diversionAirport}`);
  if (f.returnType) return word('returned');
  if (f.actualTime) return f.direction === 'DEPARTURE' ? word('departed') : arrived(f) ? word('arrived') : word('landed');
  if (f.direction === 'DEPARTURE' && f.boardingOpen && !f.boardingClosed) return word('boarding');
  if (lateBy !== null) return { key: 'delayed', text: `delayed +${lateBy} min`, late: null };
  if (f.status === 'DLY' || f.publicStatus === 'DEL') return { key: 'delayed', text: 'delayed', late: null };
  return word('scheduled');
}

export const STATUS_KEYS = ['scheduled', 'delayed', 'boarding', 'departed', 'landed', 'arrived', 'cancelled', 'diverted', 'returned', 'deleted'];

/** The status badge; `s` is the flight's status when the caller has it already. */
export function statusBadge(f, s = flightStatus(f)) {
  return h('span', { class: `status s-${s.key}`, 'data-status': s.key }, s.text, s.late !== null ? h('span', { class: 'late' }, ` +${s.late} min`) : null);
}

/** Codes of a resource list, in seq order: `A01 A02`. */
export const codes = (list) => (list || []).map((r) => r.code).join(' ');
