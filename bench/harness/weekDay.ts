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
}

/** Day `index` of the week as generated (same seed → same messages). */
function generateWeekDay(index: number) {
  const day = DAYS[index]!;
  return generateDay({
    seed: 100 + index,
    day,
    flights: FLIGHTS_PER_DAY,
    firstFlid: 1_000_000 + index * 10_000,
    firstSeqn: 10_000_000 + index * 1_000_000,
    flopsPerFlight: FLOPS_PER_FLIGHT,
    fullLists: true,
  });
}

/** The messages of day `index` that are in the log, in log order (the inbox of `msgx redecide`'s figure). */
export function loggedMessages(index: number): string[] {
  const { messages } = generateWeekDay(index);
  return index === DAYS.length - 1 ? messages.slice(0, -HELD_BACK) : messages;
}

export async function decideDay(index: number): Promise<DayRows> {
  const day = DAYS[index]!;
  const gen = generateWeekDay(index);
  const last = index === DAYS.length - 1;
  const logged = last ? gen.messages.slice(0, -HELD_BACK) : gen.messages;
  const mirror = new DomainMirror();
  const out: DayRows = {
    day, kinds: [], handlers: [], handlerVersions: [], flids: [], payloads: [], recordedAt: [],
    liveTraffic: last ? gen.messages.slice(-HELD_BACK) : [], liveFlids: [], flights: 0,
  };
  for (const [i, raw] of logged.entries()) {
    // Message ids inside the day only order its decisions; the caller renumbers them.
    const d = await mirror.process(raw, String(i + 1));
    out.kinds.push(d.decision.kind);
    out.handlers.push(d.decision.handler ?? null);
    out.handlerVersions.push(d.decision.handlerVersion ?? null);
    out.flids.push(JSON.stringify(d.decision.flids ?? []));
    out.payloads.push(JSON.stringify(d.decision.payload));
    out.recordedAt.push(d.recordedAt.toISOString());
  }
  for (const f of mirror.flights.values()) if (!f.deleted) out.liveFlids.push(f.flid);
  return { ...out, flights: mirror.flights.size };
}
