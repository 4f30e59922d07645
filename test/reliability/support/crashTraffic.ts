/**
 * Traffic for the crash matrix: a generated airport day (bench/generate.ts — a DNLD plan of 60
 * flights, then FLOPs of every subtype, ~5 % duplicates, ~4 % bad input: not XML, META without
 * SEQN, undecodable times) plus FLOPs for a flight nobody knows. The first seed at or after the
 * requested one whose day holds every FLOP subtype of the handler registry is used, so the mix
 * really exercises all of them.
 */
import { generateDay } from '../../../bench/generate.ts';
import { HANDLERS } from '../../../src/domain/handlers/registry.ts';
import { adft, stnd } from '../../write/support/messages.ts';

export interface CrashTraffic {
  /** The seed generateDay was given (≥ the one asked for). */
  readonly seed: number;
  readonly messages: readonly string[];
}

const FLOP_SUBTYPES = Object.values(HANDLERS).filter((h) => h.type === 'FLOP').map((h) => h.styp);
/** Every this many messages, one more FLOP for an unknown flight (→ SKIPPED unknown-flight). */
const UNKNOWN_EVERY = 101;
/**
 * At this share of the traffic, a flight 40 days after the generated day (2025-03-14): the latest
 * operation day passes the default 30-day keep window, so the pump decides a history sweep of the
 * whole day right there, and the FLOPs after it meet unknown flights.
 */
const SWEEP_AT = 0.9;
export const FAR_FLIGHT = adft(900_001, '899001', '23APR250800');

export function crashTraffic(seed: number): CrashTraffic {
  for (let s = seed; s < seed + 100; s++) {
    const { messages } = generateDay({ seed: s, flights: 60, flopsPerFlight: 16, duplicateRate: 0.05, badRate: 0.04 });
    const styps = new Set(messages.map((m) => /<TYPE>FLOP<\/TYPE><STYP>(\w+)<\/STYP>/.exec(m)?.[1]));
    if (!FLOP_SUBTYPES.every((t) => styps.has(t))) continue;
    const out: string[] = [];
    const sweepAt = Math.floor(messages.length * SWEEP_AT);
    messages.forEach((m, i) => {
      out.push(m);
      if (i > 0 && i % UNKNOWN_EVERY === 0) out.push(stnd(5000 + i, '899999', String(201 + (i % 50))));
      if (i === sweepAt) out.push(FAR_FLIGHT);
    });
    return { seed: s, messages: out };
  }
  throw new Error(`no seed in ${seed}…${seed + 99} gives a day with every FLOP subtype`);
}
