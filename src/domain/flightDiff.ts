/**
 * flightDiff: what differs between two versions of one flight, by GraphQL name (`estimatedTime`,
 * `currentStand`, `gates`, `checkInCounters`, …). Pure. Both sides go through `toFlightView`, the one
 * place that maps state names to GraphQL names, so a field or list added there is compared here
 * without a change: every key of the view is compared, arrays as `lists`, everything else as
 * `fields` (grouped values such as `linkedFlight` compare as a whole).
 *
 * An absent flight (undefined) is shown as a view whose fields are all null and whose lists are
 * empty, so a flight that exists on one side only differs in every field it has.
 */
import type { FlightState } from './flight.ts';
import { toFlightView, type FlightView, type FlightViewOptions } from './flightView.ts';
import { sameValue } from './lists.ts';

export interface ValueDiff<T = unknown> { before: T; after: T }

export interface FlightDiff {
  /** Differing scalar (and grouped) fields, by GraphQL `Flight` field name. */
  fields: Record<string, ValueDiff>;
  /** Differing detail lists, by GraphQL `Flight` field name; whole lists before and after. */
  lists: Record<string, ValueDiff<unknown[]>>;
}

/**
 * View keys that are envelope stamps of the log rather than flight data: the version counter, the
 * position/message of the last decision and its time. Leave them out when two folds of different
 * decisions are compared (a correction moves them by design).
 */
export const ENVELOPE_FIELDS = ['stateVersion', 'lastPosition', 'lastMsgId', 'updatedAt'] as const satisfies readonly (keyof FlightView)[];

export interface FlightDiffOptions extends FlightViewOptions {
  /** View keys not compared (e.g. `ENVELOPE_FIELDS`). */
  ignore?: readonly string[];
}

type ViewRecord = Readonly<Record<string, unknown>>;

/** Differences between two views (or any records with the `Flight` names). */
export function diffFlightViews(before: FlightView | undefined, after: FlightView | undefined, opts: FlightDiffOptions = {}): FlightDiff {
  const out: FlightDiff = { fields: {}, lists: {} };
  if (before === undefined && after === undefined) return out;
  const b = before as ViewRecord | undefined;
  const a = after as ViewRecord | undefined;
  const ignore = new Set(opts.ignore ?? []);
  const keys = new Set<string>([...Object.keys(b ?? {}), ...Object.keys(a ?? {})]);
  for (const key of keys) {
    if (ignore.has(key)) continue;
    const x = b?.[key];
    const y = a?.[key];
    const isList = Array.isArray(x) || Array.isArray(y);
    if (isList) {
      const xs = Array.isArray(x) ? x : [];
      const ys = Array.isArray(y) ? y : [];
      if (!sameValue(xs, ys)) out.lists[key] = { before: xs, after: ys };
    } else {
      // A key one side lacks (an absent flight, an older view) is null.
      const xv = x ?? null;
      const yv = y ?? null;
      if (xv !== yv && !sameValue(xv, yv)) out.fields[key] = { before: xv, after: yv };
    }
  }
  return out;
}

/** Differences between two flight states, by GraphQL name (through `toFlightView`). */
export function flightDiff(before: FlightState | undefined, after: FlightState | undefined, opts: FlightDiffOptions = {}): FlightDiff {
  // deletedReason is a `Flight` field the read API adds beside the view (flightResolvers.ts); so here.
  const view = (s: FlightState | undefined): FlightView | undefined =>
    s === undefined ? undefined : { ...toFlightView(s, opts.tz === undefined ? {} : { tz: opts.tz }), deletedReason: s.deletedReason } as FlightView;
  return diffFlightViews(view(before), view(after), opts);
}

/** True when the diff holds no difference. */
export function isEmptyDiff(d: FlightDiff): boolean {
  for (const _ in d.fields) return false;
  for (const _ in d.lists) return false;
  return true;
}
