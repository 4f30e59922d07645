/**
 * Snapshot check (docs/recovery.md "Write-model snapshots"): the newest write-model snapshot made
 * by this process's fold code against a fold of the log up to its position. With --all, the
 * whole of it (every flight, the reference store, the plan requests, the latest day) against a
 * fold of the whole log up to there; a sample check reads the head and SAMPLE_DAYS of its days
 * (random ones; each day is one gzip chunk, read and decoded whole) and compares a sample of
 * their flights with the decisions that name them (decision_event.flids, GIN-indexed, each
 * decision's changes filtered to those flights by PostgreSQL): a cost that follows the sample,
 * neither the history nor the live flights. A snapshot of other fold code is never used, so it is
 * not checked either.
 *
 * It reuses the writer's WriteModel and snapshot document on purpose: a second fold written
 * for the check could agree with itself and miss the writer's bug.
 */
import { isDeepStrictEqual } from 'node:util';
import type { FlightState } from '../../domain/flight.ts';
import { applyDecision } from '../../domain/evolve.ts';
import { readFlightsLog } from '../../log/readForFlights.ts';
import type { Queryable } from '../../platform/db.ts';
import { foldFingerprint } from './foldFingerprint.ts';
import { foldModelUpTo } from './foldUpTo.ts';
import { newestSnapshot, snapshotDays, snapshotSlice, type StoredSnapshot } from './newestSnapshot.ts';
import { chunksOf, decodeDay, decodeHead, type ModelImage } from './snapshotCodec.ts';

/**
 * The newest snapshot (`row`) differs from a fold of the log up to its position (`log`): the
 * consistency report's `snapshot` mismatch (src/consistency/report.ts; the composition root hands
 * this check to runCheck, so the roles do not import each other).
 */
export interface SnapshotMismatch {
  readonly check: 'snapshot';
  readonly position: string;
  readonly part: string;
  readonly log: unknown;
  readonly row: unknown;
}

/** A sample check compares at least this many of the snapshot's flights (all, when it has fewer). */
const MIN_SAMPLE = 20;

/** A sample check reads this many of the snapshot's days at most. */
const SAMPLE_DAYS = 2;

export interface SnapshotCheckResult {
  /** The snapshot's position; null: there is none of this fold code. */
  readonly position: string | null;
  readonly flights: number;
  readonly mismatches: SnapshotMismatch[];
}

/**
 * Equal as JSON values: the unset (undefined) `sources` keys the stored document leaves out are
 * left out on both sides, and key order does not count (a state folded from jsonb has its list
 * items' keys in jsonb's order, the writer's in the decoder's).
 */
const asJson = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const same = (a: unknown, b: unknown): boolean => isDeepStrictEqual(asJson(a), asJson(b));

function firstDifference(a: FlightState, b: FlightState): string {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (!same((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k])) return k;
  return '?';
}

function compareFlights(position: string, snap: ReadonlyMap<string, FlightState>, log: ReadonlyMap<string, FlightState>, flids: Iterable<string>): SnapshotMismatch[] {
  const out: SnapshotMismatch[] = [];
  for (const flid of flids) {
    const s = snap.get(flid);
    const l = log.get(flid);
    if (s === undefined && l === undefined) continue;
    if (s === undefined || l === undefined) {
      out.push({ check: 'snapshot', position, part: `flight ${flid}`, log: l === undefined ? 'absent' : 'present', row: s === undefined ? 'absent' : 'present' });
    } else if (!same(s, l)) {
      const key = firstDifference(s, l);
      out.push({ check: 'snapshot', position, part: `flight ${flid} ${key}`, log: (l as unknown as Record<string, unknown>)[key], row: (s as unknown as Record<string, unknown>)[key] });
    }
  }
  return out;
}

function compareWhole(image: ModelImage, log: ModelImage): SnapshotMismatch[] {
  const out = compareFlights(image.position, image.flights, log.flights, new Set([...image.flights.keys(), ...log.flights.keys()]));
  const parts: [string, unknown, unknown][] = [
    ['latest day', log.latestDay, image.latestDay],
    ['reference', [...log.reference].map(([k, v]) => [k, [...v]]), [...image.reference].map(([k, v]) => [k, [...v]])],
    ['plan requests', [...log.planRequests], [...image.planRequests]],
  ];
  for (const [part, l, s] of parts) if (!same(l, s)) out.push({ check: 'snapshot', position: image.position, part, log: l, row: s });
  return out;
}

/** The stored document's head decoded, with its days read now (`whole`) or left unread (a sample reads a few). */
async function openImage(q: Queryable, usable: StoredSnapshot, whole: boolean): Promise<ModelImage> {
  const days = whole ? await snapshotDays(q, usable.id, usable.head.length) : new Promise<Buffer>(() => undefined);
  const image = await decodeHead(usable.head, days);
  if (whole) await image.fetched;
  return image;
}

/** The flights `flids` as of `upTo`: the decisions that name them, their changes filtered to them by PostgreSQL. */
async function foldSample(q: Queryable, flids: readonly string[], upTo: string): Promise<Map<string, FlightState>> {
  const folded = new Map<string, FlightState>();
  for await (const page of readFlightsLog(q, flids, '0', upTo)) for (const e of page) if (e.changes.length > 0) applyDecision(folded, e);
  return folded;
}

/** `want` distinct items of `all` at random (a partial Fisher–Yates shuffle; `all` is reordered). */
function pick<T>(all: T[], most: number): T[] {
  const want = Math.min(most, all.length);
  for (let i = 0; i < want; i++) {
    const j = i + Math.floor(Math.random() * (all.length - i));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, want);
}

/** `ratio`: the share of the snapshot's flights a sample check compares (ignored with `whole`). */
export async function checkSnapshot(q: Queryable, head: string, opts: { readonly whole: boolean; readonly ratio: number }): Promise<SnapshotCheckResult> {
  const { usable } = await newestSnapshot(q, foldFingerprint(), head);
  if (usable === undefined) return { position: null, flights: 0, mismatches: [] };
  const unreadable = (err: unknown): SnapshotCheckResult => ({
    position: usable.position, flights: 0, mismatches: [{ check: 'snapshot', position: usable.position, part: 'document', log: 'a gzip JSON document', row: (err as Error).message }],
  });
  let image: ModelImage;
  try {
    image = await openImage(q, usable, opts.whole);
  } catch (err) {
    return unreadable(err);
  }
  if (image.position !== usable.position) {
    return { position: usable.position, flights: 0, mismatches: [{ check: 'snapshot', position: usable.position, part: 'position', log: usable.position, row: image.position }] };
  }
  if (opts.whole) {
    const folded = await foldModelUpTo(q, image.position);
    return { position: image.position, flights: image.flights.size, mismatches: compareWhole(image, folded.capture()) };
  }
  // A few days' chunks, read and decoded; the sample is taken among their flights.
  const snap = new Map<string, FlightState>();
  try {
    for (const chunk of pick(chunksOf(image), SAMPLE_DAYS)) {
      const flights = decodeDay(chunk, await snapshotSlice(q, usable.id, usable.head.length + chunk.offset, chunk.length));
      for (const f of flights) snap.set(f.flid, f);
    }
  } catch (err) {
    return unreadable(err);
  }
  const all = [...snap.keys()];
  const want = Math.min(all.length, Math.max(MIN_SAMPLE, Math.ceil(image.flights.size * opts.ratio)));
  const flids = pick(all, want);
  const folded = await foldSample(q, flids, image.position);
  return { position: image.position, flights: flids.length, mismatches: compareFlights(image.position, snap, folded, flids) };
}
