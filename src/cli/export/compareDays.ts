import type { FlightState } from '../../domain/flight.ts';
import { ENVELOPE_FIELDS, flightDiff, isEmptyDiff, type FlightDiff } from '../../domain/flightDiff.ts';

export interface FlightComparison {
  readonly flid: string;
  /** 'both': on both sides and differing; otherwise on one side only. */
  readonly presence: 'both' | 'only here' | 'only there';
  readonly diff: FlightDiff;
}

export interface DayComparison {
  readonly day: string;
  readonly here: number;
  readonly there: number;
  readonly differing: readonly FlightComparison[];
}

/**
 * Two msgx instances' flights of one day, field by field and list by list by GraphQL name
 * (src/domain/flightDiff.ts), the log's envelope left out (stateVersion, lastPosition, lastMsgId,
 * updatedAt: two installations number and time their decisions differently). Pure.
 */
export function compareDays(day: string, here: readonly FlightState[], there: readonly FlightState[], tz: string): DayComparison {
  const a = new Map(here.map((f) => [f.flid, f]));
  const b = new Map(there.map((f) => [f.flid, f]));
  const flids = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : BigInt(x) > BigInt(y) ? 1 : 0));
  const differing: FlightComparison[] = [];
  for (const flid of flids) {
    const x = a.get(flid);
    const y = b.get(flid);
    const diff = flightDiff(x, y, { tz, ignore: ENVELOPE_FIELDS });
    if (x && y && isEmptyDiff(diff)) continue;
    differing.push({ flid, presence: x && y ? 'both' : x ? 'only here' : 'only there', diff });
  }
  return { day, here: here.length, there: there.length, differing };
}

const show = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
const cut = (s: string, n: number): string => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** The comparison as a table for a terminal: one line per differing field or list. */
export function formatComparison(c: DayComparison, hereName: string, thereName: string): string {
  const lines = [`compare ${c.day}: here (${hereName}) ${c.here} flights, there (${thereName}) ${c.there} flights`];
  if (c.differing.length > 0) lines.push(`${'flid'.padEnd(12)} ${'field'.padEnd(20)} ${'here'.padEnd(40)} there`);
  for (const f of c.differing) {
    if (f.presence !== 'both') {
      lines.push(`${f.flid.padEnd(12)} (${f.presence})`);
      continue;
    }
    for (const [name, d] of Object.entries(f.diff.fields)) {
      lines.push(`${f.flid.padEnd(12)} ${name.padEnd(20)} ${cut(show(d.before), 40).padEnd(40)} ${cut(show(d.after), 80)}`);
    }
    for (const [name, d] of Object.entries(f.diff.lists)) {
      lines.push(`${f.flid.padEnd(12)} ${name.padEnd(20)} ${cut(show(d.before), 40).padEnd(40)} ${cut(show(d.after), 80)}`);
    }
  }
  const only = (p: FlightComparison['presence']) => c.differing.filter((f) => f.presence === p).length;
  lines.push(
    c.differing.length === 0
      ? 'no differences'
      : `${c.differing.length} flights differ (${only('only here')} only here, ${only('only there')} only there)`,
  );
  return lines.join('\n') + '\n';
}
