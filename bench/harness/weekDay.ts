/**
 * One day of the week fixture, decided in-process (DomainMirror): the logged decisions as rows
 * ready to insert (payload as JSON text), the held-back live traffic, and the day's live flids.
 * Days share no flights, so they are decided independently (in worker threads, weekWorker.ts) and
 * numbered afterwards: message ids and positions are assigned by the caller in day order.
 */
import { generateDay } from '../generate.ts';
import { DomainMirror } from './domainMirror.ts';

export const DAYS = ['2025-03-10', '2025-03-11', '2025-03-12', '2025-03-13', '2025-03-14'] as const;
export const FLIGHTS_PER_DAY = 2000;
const FLOPS_PER_FLIGHT = 21;
/** FLOPs of the last day kept out of the log (live traffic of figure 7). */
export const HELD_BACK = 5000;

export interface DayRows {
  readonly day: string;
  readonly kinds: string[];
  readonly handlers: (string | null)[];
  readonly handlerVersions: (number | null)[];
  /** JSON arrays of flids. */
  readonly flids: string[];
  /** JSON payloads. */
  readonly payloads: string[];
  readonly recordedAt: string[];
  readonly liveTraffic: string[];
  readonly liveFlids: string[];
  readonly flights: number;
  /** History days only (decideHistoryDay): every flid the day created, and the logged messages' XML. */
  readonly allFlids?: string[];
  readonly raws?: string[];
}

/** Day `index` of the week as generated (same seed → same messages). */
function generateWeekDay(index: number) {
  return generateFixtureDay(DAYS[index]!, 100 + index, 1_000_000 + index * 10_000, 10_000_000 + index * 1_000_000);
}

/** A day of the fixture's density and mix (FLIGHTS_PER_DAY flights, FLOPS_PER_FLIGHT FLOPs each, full lists). */
function generateFixtureDay(day: string, seed: number, firstFlid: number, firstSeqn: number) {
  return generateDay({ seed, day, flights: FLIGHTS_PER_DAY, firstFlid, firstSeqn, flopsPerFlight: FLOPS_PER_FLIGHT, fullLists: true });
}

/** The messages of day `index` that are in the log, in log order (the inbox of `msgx redecide`'s figure). */
export function loggedMessages(index: number): string[] {
  const { messages } = generateWeekDay(index);
  return index === DAYS.length - 1 ? messages.slice(0, -HELD_BACK) : messages;
}

export async function decideDay(index: number): Promise<DayRows> {
  const gen = generateWeekDay(index);
  const last = index === DAYS.length - 1;
  const logged = last ? gen.messages.slice(0, -HELD_BACK) : gen.messages;
  const { rows } = await decideMessages(DAYS[index]!, logged);
  return { ...rows, liveTraffic: last ? gen.messages.slice(-HELD_BACK) : [] };
}

/**
 * Day `n` (0, 1, …) of a history of whole weeks (the `history` figure, bench/harness/historyLog.ts):
 * the week fixture's density and mix, shifted — week ⌊n/5⌋ is DAYS moved by 7 days per week, with a
 * seed, flids and sequence numbers of its own, so days share no flights. Nothing is held back; the
 * day's flids and raw messages come along for the sweep decisions and the inbox.
 */
export async function decideHistoryDay(n: number): Promise<DayRows> {
  const { day, gen } = historyDay(n);
  const { rows, mirror } = await decideMessages(day, gen.messages);
  return { ...rows, allFlids: [...mirror.flights.keys()], raws: gen.messages };
}

/** History day `n`'s operation day (YYYY-MM-DD), without generating its messages. */
export function historyDayName(n: number): string {
  const base = DAYS[n % DAYS.length]!;
  const [y, m, d] = base.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 7 * Math.floor(n / DAYS.length))).toISOString().slice(0, 10);
}

/**
 * History day `n` as generated: its operation day and its messages (the DNLD plan first, then its
 * FLOPs). Generating a day costs ~0.5–1 CPU-s: where only the day is needed, use historyDayName.
 */
export function historyDay(n: number): { day: string; gen: ReturnType<typeof generateDay> } {
  const day = historyDayName(n);
  return { day, gen: generateFixtureDay(day, 5000 + n, 2_000_000 + n * 10_000, 200_000_000 + n * 1_000_000) };
}

/** Decides `messages` in order on a fresh DomainMirror: the day's rows (no live traffic) and the mirror. */
async function decideMessages(day: string, messages: readonly string[]): Promise<{ rows: DayRows; mirror: DomainMirror }> {
  const mirror = new DomainMirror();
  const rows = {
    day, kinds: [] as string[], handlers: [] as (string | null)[], handlerVersions: [] as (number | null)[], flids: [] as string[],
    payloads: [] as string[], recordedAt: [] as string[], liveTraffic: [] as string[], liveFlids: [] as string[], flights: 0,
  };
  for (const [i, raw] of messages.entries()) {
    // Message ids inside the day only order its decisions; the caller renumbers them.
    const d = await mirror.process(raw, String(i + 1));
    rows.kinds.push(d.decision.kind);
    rows.handlers.push(d.decision.handler ?? null);
    rows.handlerVersions.push(d.decision.handlerVersion ?? null);
    rows.flids.push(JSON.stringify(d.decision.flids ?? []));
    rows.payloads.push(JSON.stringify(d.decision.payload));
    rows.recordedAt.push(d.recordedAt.toISOString());
  }
  for (const f of mirror.flights.values()) if (!f.deleted) rows.liveFlids.push(f.flid);
  return { rows: { ...rows, flights: mirror.flights.size }, mirror };
}
