/**
 * Round trip (docs/contract/aidx.md "Round trip"): msgx's AIDX output, fed into a fresh msgx,
 * gives the same flight state for every field AIDX carries. Property over generated SIS days
 * (bench/generate.ts: a DNLD plan and the FLOP mix): decide each message as the pump does, render
 * one AIDX message per touched flight as the outbox feeder does (position order), then decode and
 * decide those messages alone into an empty write model and compare leg by leg. Every third flight
 * of the plan is made a code share (CSOP/CSFT/MAID naming the flight before it as its operating
 * flight): AIDX carries no code share of ours (docs/contract/aidx.md "Code shares"), so none comes
 * back and no published leg claims one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateDay } from '../../bench/generate.ts';
import { aidxLeg, aidxMessage, aidxTimes, type AidxRules } from '../../src/domain/aidxOut/aidxMessage.ts';
import { decode } from '../../src/domain/codec/decode.ts';
import { decide } from '../../src/domain/decide.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { Allocation, FlightState } from '../../src/domain/flight.ts';
import { emptyFields } from '../../src/domain/fields.ts';
import { findLeg, legFfid } from '../../src/domain/handlers/aidx.ts';
import { listsOf } from '../../src/domain/lists.ts';
import { identityKey } from '../../src/domain/identity.ts';

const TZ = 'Asia/Shanghai';
/** Our airport: not one the generator uses for the other ends. */
const RULES: AidxRules = { airport: 'TAO', originator: 'MSGX' };

/** SIS day → flights, and the AIDX messages the outbox would publish, in log order. */
function sisDay(seed: number, flights: number): { sis: Map<string, FlightState>; published: string[] } {
  const day = generateDay({ seed, flights, flopsPerFlight: 6, duplicateRate: 0, badRate: 0, fullLists: true });
  day.messages[0] = withCodeShares(day.messages[0]!);
  const sis = new Map<string, FlightState>();
  const seen = new Set<string>();
  const published: string[] = [];
  let position = 0;
  day.messages.forEach((xml, i) => {
    const r = decode(xml, { tz: TZ });
    if (!r.ok) return;
    const key = identityKey(r.message.meta, { includeDay: false });
    if (seen.has(key)) return;
    seen.add(key);
    const d = decide(sis, r.message, undefined, { msgId: String(i + 1) });
    if (d.skipped !== undefined || d.changes.length === 0) return;
    position++;
    const recordedAt = r.message.meta.sentAt;
    const touched = applyDecision(sis, { position: String(position), msgId: String(i + 1), recordedAt, changes: d.changes });
    for (const flid of touched) {
      const state = sis.get(flid);
      if (state === undefined) continue;
      const out = aidxMessage(state, String(position), recordedAt, RULES);
      if ('xml' in out) published.push(out.xml);
    }
  });
  return { sis, published };
}

/**
 * The generated plan (DNLD, flids counting up from the first) with every third flight a code share
 * (a marketing flight MU5xxx) of the flight before it: CSOP/CSFT/MAID → masterAirline, masterFlightNo, masterFlid.
 */
function withCodeShares(plan: string): string {
  let i = 0;
  return plan.replace(/<FLTR><FLID>(\d+)<\/FLID>/g, (m, flid: string) => {
    if (i++ % 3 !== 2) return m;
    const master = String(BigInt(flid) - 1n);
    return `${m}<CSOP>MU</CSOP><CSFT>MU5${flid.slice(-3)}</CSFT><MAID>${master}</MAID>`;
  });
}

/** The published messages decided into an empty write model, as a fresh msgx would. */
function feed(published: readonly string[]): Map<string, FlightState> {
  const flights = new Map<string, FlightState>();
  published.forEach((xml, i) => {
    const r = decode(xml, { tz: TZ, airportIata: RULES.airport });
    if (!r.ok) throw new Error(`our own AIDX did not decode: ${r.errorClass} ${r.error}\n${xml}`);
    const d = decide(flights, r.message, undefined, { msgId: String(i + 1) });
    if (d.skipped === undefined) applyDecision(flights, { position: String(i + 1), msgId: String(i + 1), recordedAt: r.message.meta.sentAt, changes: d.changes });
  });
  return flights;
}

const codes = (l: readonly Allocation[]) => [...l].sort((a, b) => a.seq - b.seq).map((a) => a.code);

/** What AIDX carries of a flight, as AIDX carries it (times as published, the current stand, first 3 gates…). */
function carried(f: FlightState) {
  const times = Object.fromEntries(aidxTimes(f).map((t) => [`${t.qualifier} ${t.timeType}`, t.value]));
  return {
    deleted: f.deleted,
    times,
    status: f.status?.toUpperCase() ?? null,
    stand: f.currentStand ?? codes(f.stands).at(-1) ?? null,
    gates: codes(f.gates).slice(0, 3),
    belts: f.direction === 'A' ? codes(f.belts).slice(0, 5) : [],
    terminal: f.terminal,
    runway: f.runway,
    aircraftType: f.aircraftType,
    registration: f.registration,
    delays: f.delays.slice(0, 8).map((d) => [d.code, d.durationMinutes]),
  };
}

describe('AIDX round trip', () => {
  it('every published leg of a generated SIS day comes back with the same times, status, resources, aircraft, delays and deletion', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const { sis, published } = sisDay(seed, 24);
        expect(published.length).toBeGreaterThan(0);
        const shares = [...sis.values()].filter((f) => f.masterFlid !== null);
        expect(shares.length, 'code-share flights in the day').toBeGreaterThan(0);
        expect(shares.every((f) => f.masterAirline === 'MU' && sis.has(f.masterFlid!))).toBe(true);
        // The operating flight is never written as a code share of its marketing flight (nor the reverse).
        expect(published.filter((xml) => xml.includes('CodeShareInfo'))).toEqual([]);
        const fresh = feed(published);
        expect([...fresh.values()].filter((f) => f.masterAirline !== null || f.masterFlightNo !== null || f.masterFlid !== null)).toEqual([]);
        let compared = 0;
        for (const f of sis.values()) {
          const leg = aidxLeg(f, RULES.airport);
          if (typeof leg === 'string') continue;
          const ffid = legFfid({
            airline: leg.airline, flightNumber: leg.flightNumber, suffix: leg.suffix?.toUpperCase() ?? null,
            departureAirport: leg.departure, arrivalAirport: leg.arrival, originDate: leg.originDate, direction: f.direction!,
          });
          const back = findLeg(fresh, ffid).state;
          expect(back, `leg ${ffid} of flid ${f.flid}`).toBeDefined();
          expect(carried(back!), `leg ${ffid} of flid ${f.flid}`).toEqual(carried(f));
          compared++;
        }
        expect(compared).toBeGreaterThan(0);
      }),
      { numRuns: 15 },
    );
  });

  it('a time the flight no longer has is published xsi:nil and cleared on the way back; an absent one would have been kept', () => {
    const base: FlightState = {
      ...emptyFields(), ...listsOf({}), flid: '77', operationDay: '2025-03-14', deleted: false, deletedReason: null, stateVersion: 1,
      lastPosition: '1', lastMsgId: null, updatedAt: null, airline: 'CA', flightNo: 'CA1501', direction: 'D',
      adjacent: [{ seq: 1, airport: 'SHA', scheduledArrival: null, scheduledDeparture: null }],
      scheduledTime: '2025-03-14T01:30:00.000Z', estimatedTime: '2025-03-14T01:50:00.000Z', tobt: '2025-03-14T01:45:00.000Z',
    };
    const xml = (f: FlightState, position: string) => {
      const out = aidxMessage(f, position, '2025-03-14T00:00:00.000Z', RULES);
      if (!('xml' in out)) throw new Error(out.skipped);
      return out.xml;
    };
    const cleared = xml({ ...base, estimatedTime: null, tobt: null }, '2');
    expect(cleared).toContain('<OperationTime OperationQualifier="OFB" CodeContext="9750" TimeType="EST" xsi:nil="true"/>');
    const back = [...feed([xml(base, '1'), cleared]).values()];
    expect(back.map((f) => [f.scheduledTime, f.estimatedTime, f.eobt, f.tobt])).toEqual([['2025-03-14T01:30:00.000Z', null, null, null]]);
  });
});
