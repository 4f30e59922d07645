/**
 * What the crash matrix checks after a run, each as a list of problems (empty = fine):
 * decisions equal the reference, one terminal decision per message, gap-free positions, every
 * change on Kafka `msg` at least once and in per-flight order, the newest `schd` record per
 * flight equal to the flight folded from the log, the flight read models equal to a rebuild,
 * every CMINMSGS row written back.
 */
import type { Change } from '../../../src/domain/changes.ts';
import type { FlightState } from '../../../src/domain/flight.ts';
import { toChangeView } from '../../../src/domain/changeView.ts';
import { expandChanges } from '../../../src/domain/compactChange.ts';
import { toFlightView } from '../../../src/domain/flightView.ts';
import type { Queryable } from '../../../src/platform/db.ts';
import { FLIGHT_PROJECTION_TABLES } from '../../../src/readModel/flightTables.ts';
import type { StoredRecord } from '../../support/kafka/broker.ts';
import type { TestMailbox } from '../../support/databases.ts';
import { terminalCounts, type DecisionRow, type ProcRow } from '../../write/support/writeHarness.ts';

/** JSON with object keys sorted (jsonb does not keep key order). */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/**
 * Per message id, what its decisions say without times: kind + changes / reason / error class, in
 * order. Decisions of no message (the history sweep) are keyed by the message decided right before
 * them: a sweep must come behind the same decision as in the reference.
 */
export function digest(rows: readonly DecisionRow[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let previous: string | null = null;
  for (const r of rows) {
    if (r.msg_id === null) {
      const key = `(no message) after msg ${previous}`;
      out.set(key, [...(out.get(key) ?? []), `${r.kind}:${canonical(r.payload)}`]);
      continue;
    }
    previous = r.msg_id;
    const p = r.payload;
    const what = r.kind === 'Applied' ? canonical(p.changes) : r.kind === 'Skipped' ? String(p.reason) : `${String(p.errorClass)}/${String(p.causeClass ?? '')}`;
    out.set(r.msg_id, [...(out.get(r.msg_id) ?? []), `${r.kind}:${what}`]);
  }
  return out;
}

export function decisionDifferences(reference: Map<string, string[]>, actual: Map<string, string[]>): string[] {
  const ids = new Set([...reference.keys(), ...actual.keys()]);
  const out: string[] = [];
  for (const id of ids) {
    const a = JSON.stringify(actual.get(id) ?? null);
    const e = JSON.stringify(reference.get(id) ?? null);
    if (a !== e) out.push(`msg ${id}: crash run ${a.slice(0, 300)} ≠ reference ${e.slice(0, 300)}`);
  }
  return out;
}

/** Every message exactly one terminal decision, every proc_state terminal, positions 1…n without a gap. */
export function logProblems(log: readonly DecisionRow[], procs: readonly ProcRow[], total: number): string[] {
  const out: string[] = [];
  for (const [id, n] of terminalCounts(log)) if (n !== 1) out.push(`msg ${id}: ${n} terminal decisions`);
  if (procs.length !== total) out.push(`${procs.length} proc_state rows for ${total} messages`);
  for (const p of procs) if (!['SUCCEEDED', 'SKIPPED', 'DEAD', 'PARKED'].includes(p.state)) out.push(`msg ${p.msg_id}: ${p.state}`);
  log.forEach((d, i) => {
    if (Number(d.position) !== i + 1) out.push(`position ${d.position} at index ${i}: the log has a gap`);
  });
  return out.slice(0, 20);
}

export interface MsgTopicCheck {
  readonly problems: string[];
  readonly changes: number;
  readonly records: number;
  /** Records sent again after a crash (same event-id). */
  readonly duplicates: number;
}

interface MsgValue {
  readonly flid: string | null;
  readonly position: string;
  readonly msgId: string | null;
  readonly change: Change;
}

const flidOf = (c: Change): string | null => ('flid' in c && typeof c.flid === 'string' ? c.flid : null);

/**
 * Every change of every Applied decision is on `msg` (deduplicated by the event-id header), with
 * the right key and headers, and per flight in log order (position, then change order); changes
 * without a flight (plan snapshots) are there as a set. A change is on `msg` as the API would show
 * it: its instants in the airport zone `tz` with the offset (toChangeView).
 */
export function checkMsgTopic(log: readonly DecisionRow[], records: readonly StoredRecord[], tz: string): MsgTopicCheck {
  const problems: string[] = [];
  const expected = new Map<string | null, string[]>();
  const msgIdAt = new Map<string, string | null>();
  let changes = 0;
  for (const d of log) {
    if (d.kind !== 'Applied') continue;
    msgIdAt.set(d.position, d.msg_id);
    // The log stores created flights compact; Kafka shows them full (docs/projections.md "Big decisions").
    for (const c of expandChanges((d.payload.changes ?? []) as Change[])) {
      const flid = flidOf(c);
      expected.set(flid, [...(expected.get(flid) ?? []), `${d.position} ${canonical(toChangeView(c, tz))}`]);
      changes++;
    }
  }
  const first = new Map<string, StoredRecord>();
  const actual = new Map<string | null, string[]>();
  let duplicates = 0;
  for (const r of records) {
    const id = r.headers['event-id'];
    if (id === undefined) {
      problems.push(`record ${r.partition}/${r.offset} has no event-id header`);
      continue;
    }
    const seen = first.get(id);
    if (seen) {
      duplicates++;
      if (seen.value !== r.value || seen.key !== r.key) problems.push(`event ${id} sent again with other content`);
      continue;
    }
    first.set(id, r);
    const v = JSON.parse(r.value ?? 'null') as MsgValue;
    if (r.key !== v.flid) problems.push(`event ${id}: key ${r.key} but flid ${v.flid}`);
    if (r.headers['log-position'] !== v.position) problems.push(`event ${id}: log-position header ${r.headers['log-position']} ≠ ${v.position}`);
    if ((r.headers['msg-id'] ?? null) !== (msgIdAt.get(v.position) ?? null)) {
      problems.push(`event ${id}: msg-id header ${r.headers['msg-id']} ≠ decision's ${msgIdAt.get(v.position)}`);
    }
    actual.set(v.flid, [...(actual.get(v.flid) ?? []), `${v.position} ${canonical(v.change)}`]);
  }
  for (const flid of new Set([...expected.keys(), ...actual.keys()])) {
    let e = expected.get(flid) ?? [];
    let a = actual.get(flid) ?? [];
    if (flid === null) [e, a] = [[...e].sort(), [...a].sort()];
    if (JSON.stringify(e) === JSON.stringify(a)) continue;
    const i = e.findIndex((x, k) => a[k] !== x);
    const at = i === -1 ? e.length : i;
    problems.push(
      `flight ${flid}: ${a.length} changes on msg, ${e.length} in the log; first difference at #${at}: ` +
        `kafka ${(a[at] ?? '—').slice(0, 160)} / log ${(e[at] ?? '—').slice(0, 160)}`,
    );
  }
  return { problems: problems.slice(0, 20), changes, records: records.length, duplicates };
}

/** The flights folded from two logs are the same (envelope times and positions aside). */
export function flightDifferences(reference: ReadonlyMap<string, FlightState>, actual: ReadonlyMap<string, FlightState>): string[] {
  const comparable = (f: FlightState | undefined) => (f ? canonical({ ...f, updatedAt: null, lastPosition: null }) : 'missing');
  const out: string[] = [];
  for (const flid of new Set([...reference.keys(), ...actual.keys()])) {
    const [e, a] = [comparable(reference.get(flid)), comparable(actual.get(flid))];
    if (e !== a) out.push(`flight ${flid}: crash run ${a.slice(0, 200)} ≠ reference ${e.slice(0, 200)}`);
  }
  return out.slice(0, 20);
}

/** The newest record of each flight on `schd` is the flight as folded from the whole log (shown in `tz`, as the API does). */
export function schdProblems(flights: ReadonlyMap<string, FlightState>, records: readonly StoredRecord[], tz: string): string[] {
  const newest = new Map<string, string>();
  for (const r of records) {
    for (const view of JSON.parse(r.value ?? '[]') as { flid: string }[]) newest.set(view.flid, canonical(view));
  }
  const out: string[] = [];
  for (const [flid, state] of flights) {
    const want = canonical(JSON.parse(JSON.stringify(toFlightView(state, { tz }))));
    const got = newest.get(flid);
    if (got !== want) out.push(`flight ${flid}: newest schd record ${got === undefined ? 'missing' : got.slice(0, 200)} ≠ folded ${want.slice(0, 200)}`);
  }
  return out.slice(0, 20);
}

/** Every row of every flight projection table, as sorted JSON text. */
export async function flightSnapshot(q: Queryable): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of FLIGHT_PROJECTION_TABLES) {
    const { rows } = await q.query<{ r: string }>(`SELECT to_jsonb(x)::text AS r FROM public.${t} x ORDER BY 1`);
    out[t] = rows.map((row) => row.r);
  }
  return out;
}

export function snapshotDifferences(live: Record<string, string[]>, rebuilt: Record<string, string[]>): string[] {
  const out: string[] = [];
  for (const t of Object.keys(rebuilt)) {
    const a = live[t] ?? [];
    const b = rebuilt[t]!;
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const onlyLive = a.filter((x) => !b.includes(x));
    const onlyRebuilt = b.filter((x) => !a.includes(x));
    out.push(`${t}: live ${a.length} rows, rebuilt ${b.length}; only live: ${onlyLive[0]?.slice(0, 200) ?? '—'}; only rebuilt: ${onlyRebuilt[0]?.slice(0, 200) ?? '—'}`);
  }
  return out;
}

const STATUS_OF: Record<string, string> = { SUCCEEDED: 'PROCESSED', SKIPPED: 'SKIPPED', DEAD: 'DEAD', PARKED: 'PARKED' };

/** Every CMINMSGS row has CMINMSGS_STATUS (matching its proc_state) and CMINMSGS_DATE_PROCESSED; every write-back DONE. */
export async function backfillProblems(my: TestMailbox, procs: readonly ProcRow[]): Promise<string[]> {
  const [rows] = await my.pool.query('SELECT CMINMSGS_ID AS id, CMINMSGS_STATUS AS status, CMINMSGS_DATE_PROCESSED AS processed FROM CMINMSGS ORDER BY CMINMSGS_ID');
  const byId = new Map(procs.map((p) => [p.msg_id, p]));
  const out: string[] = [];
  for (const r of rows as { id: string; status: string | null; processed: string | null }[]) {
    const p = byId.get(String(r.id));
    if (r.status === null || r.processed === null) out.push(`CMINMSGS ${r.id}: status ${r.status}, processed ${r.processed}`);
    else if (p && r.status !== STATUS_OF[p.state]) out.push(`CMINMSGS ${r.id}: status ${r.status} for a ${p.state} message`);
  }
  for (const p of procs) if (p.backfill_state !== 'DONE') out.push(`msg ${p.msg_id}: backfill ${p.backfill_state}`);
  return out.slice(0, 20);
}
