/**
 * Traffic for the crash matrix: a generated airport day (bench/generate.ts — a DNLD plan of 60
 * flights, then FLOPs of every subtype, ~5 % duplicates, ~4 % bad input: not XML, META without
 * SEQN, undecodable times) plus FLOPs for a flight nobody knows, and IATA AIDX updates of the
 * plan's flights (found by leg key, docs/contract/aidx.md "Finding a leg"), an AIDX leg the plan
 * does not hold and an AIDX duplicate. The first seed at or after the requested one whose day holds
 * every FLOP subtype of the handler registry is used, so the mix really exercises all of them.
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
/** Our airport (MSGX_AIRPORT_IATA of the runs): the generated plan's own station. */
export const CRASH_AIRPORT = 'TAO';
/** Every this many messages, one AIDX update of a plan flight. */
const AIDX_EVERY = 23;

const AIDX_NS = 'http://www.iata.org/IATA/2007/00';
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

interface PlanLeg { airline: string; number: string; direction: 'A' | 'D'; other: string; sodt: string }

/** The plan's flights as AIDX names them (airline, number, direction, the other airport, SODT). */
function planLegs(plan: string): PlanLeg[] {
  const re = /<ALCD>(\w+)<\/ALCD><FLNO>\w*?(\d+)<\/FLNO><MVIN>([AD])<\/MVIN><SODT>(\w+)<\/SODT>.*?<ROUT RTNO="1"><APCD>(\w+)<\/APCD>/g;
  return [...plan.matchAll(re)].map((m) => ({ airline: m[1]!, number: m[2]!, direction: m[3] as 'A' | 'D', sodt: m[4]!, other: m[5]! }));
}

/** ddMMMyyHHmm (airport-local) plus `minutes` → an AIDX local time (no zone: airport-local). */
function aidxLocal(sodt: string, minutes: number): string {
  const m = /^(\d{2})([A-Z]{3})(\d{2})(\d{2})(\d{2})$/.exec(sodt)!;
  const t = new Date(Date.UTC(2000 + Number(m[3]), MONTHS.indexOf(m[2]!), Number(m[1]), Number(m[4]), Number(m[5]) + minutes));
  return t.toISOString().slice(0, 19);
}

/** One AIDX FlightLegNotifRQ for `leg`: an estimate, a stand and a status, and a time msgx keeps in the decision. */
export function aidxUpdate(leg: PlanLeg, seq: number, shift: number): string {
  const d = leg.direction === 'D';
  const block = d ? 'OFB' : 'ONB';
  const side = d ? 'Departure' : 'Arrival';
  return `<?xml version="1.0" encoding="UTF-8"?><IATA_AIDX_FlightLegNotifRQ xmlns="${AIDX_NS}" Version="21.3" SequenceNmbr="${seq}" TimeStamp="2025-03-14T00:00:00Z">`
    + '<Originator Code="SITA" CompanyShortName="SITA"/><FlightLeg><LegIdentifier>'
    + `<Airline>${leg.airline}</Airline><FlightNumber>${leg.number}</FlightNumber>`
    + `<DepartureAirport>${d ? CRASH_AIRPORT : leg.other}</DepartureAirport><ArrivalAirport>${d ? leg.other : CRASH_AIRPORT}</ArrivalAirport>`
    + '<OriginDate>2025-03-14</OriginDate></LegIdentifier><LegData>'
    + `<OperationalStatus RepeatIndex="1" CodeContext="9750">${d ? 'ETD' : 'ETA'}</OperationalStatus>`
    + `<AirportResources Usage="Actual"><Resource DepartureOrArrival="${side}"><AircraftParkingPosition>${300 + (seq % 40)}</AircraftParkingPosition></Resource></AirportResources>`
    + `<OperationTime OperationQualifier="${block}" TimeType="EST" CodeContext="9750">${aidxLocal(leg.sodt, shift)}</OperationTime>`
    + `<OperationTime OperationQualifier="${d ? 'TKO' : 'TDN'}" TimeType="EST" CodeContext="9750">${aidxLocal(leg.sodt, shift + (d ? 12 : -8))}</OperationTime>`
    + '</LegData></FlightLeg></IATA_AIDX_FlightLegNotifRQ>';
}

/** A leg the plan does not hold: AIDX creates it, with the flid msgx assigns. */
const AIDX_NEW_LEG: PlanLeg = { airline: 'CA', number: '8777', direction: 'D', other: 'PEK', sodt: '14MAR252130' };

export function crashTraffic(seed: number): CrashTraffic {
  for (let s = seed; s < seed + 100; s++) {
    const { messages } = generateDay({ seed: s, flights: 60, flopsPerFlight: 16, duplicateRate: 0.05, badRate: 0.04 });
    const styps = new Set(messages.map((m) => /<TYPE>FLOP<\/TYPE><STYP>(\w+)<\/STYP>/.exec(m)?.[1]));
    if (!FLOP_SUBTYPES.every((t) => styps.has(t))) continue;
    const out: string[] = [];
    const sweepAt = Math.floor(messages.length * SWEEP_AT);
    const legs = planLegs(messages[0]!);
    let aidx = 0;
    messages.forEach((m, i) => {
      out.push(m);
      if (i > 0 && i % UNKNOWN_EVERY === 0) out.push(stnd(5000 + i, '899999', String(201 + (i % 50))));
      if (i > 0 && i % AIDX_EVERY === 0 && i < sweepAt) {
        const update = aidxUpdate(legs[aidx % legs.length]!, 70_000 + aidx, 5 + (aidx % 30));
        out.push(update);
        if (aidx === 3) out.push(update); // the same sender, sequence and leg: a duplicate
        if (aidx === 5) out.push(aidxUpdate(AIDX_NEW_LEG, 79_999, 0));
        aidx++;
      }
      if (i === sweepAt) out.push(FAR_FLIGHT);
    });
    return { seed: s, messages: out };
  }
  throw new Error(`no seed in ${seed}…${seed + 99} gives a day with every FLOP subtype`);
}
