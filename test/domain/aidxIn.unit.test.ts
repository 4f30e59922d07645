/**
 * AIDX in (docs/contract/aidx.md "AIDX in"): decoding IATA_AIDX_FlightLegNotifRQ (namespace and
 * local name, bare or wrapped, versions) and deciding its legs into the one write model — times,
 * nil, resources, aircraft, delays, statuses (cancel, reinstate, diversion, return), deletion,
 * flids assigned in the decision, identity, bad input.
 */
import { describe, expect, it } from 'vitest';
import { decode, type DecodeResult } from '../../src/domain/codec/decode.ts';
import { decide } from '../../src/domain/decide.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { AIDX_FLID_BASE, findLeg, legFfid } from '../../src/domain/handlers/aidx.ts';
import { aidxIdentityKey } from '../../src/domain/identity.ts';
import type { AidxMessage } from '../../src/domain/message.ts';
import { aircraft, belt, delay, gate, leg, notif, plannedArrival, resources, stand, status, terminal, time, wrapped } from './support/aidxXml.ts';

const TZ = 'Asia/Shanghai';
const OURS = 'PEK';

function aidx(xml: string, airportIata: string | undefined = OURS): AidxMessage {
  const r = decode(xml, { tz: TZ, airportIata });
  if (!r.ok) throw new Error(`expected AIDX, got ${r.errorClass}: ${r.error}`);
  if (r.message.type !== 'AIDX') throw new Error(`expected AIDX, got ${r.message.type}`);
  return r.message;
}

function failed(xml: string, airportIata: string | null = OURS): Extract<DecodeResult, { ok: false }> {
  const r = decode(xml, { tz: TZ, airportIata: airportIata ?? undefined });
  if (r.ok) throw new Error('expected a decode failure');
  return r;
}

/** Decide and apply each message in order, like the pump; returns the flights and each decision. */
function run(xmls: readonly string[], flights = new Map<string, FlightState>(), firstId = 1) {
  const decisions = xmls.map((xml, i) => {
    const id = String(firstId + i);
    const d = decide(flights, aidx(xml), undefined, { msgId: id });
    if (d.skipped === undefined) applyDecision(flights, { position: id, msgId: id, recordedAt: '2025-03-14T00:00:00.000Z', changes: d.changes });
    return d;
  });
  return { flights, decisions };
}

const soleFlight = (flights: Map<string, FlightState>): FlightState => {
  const live = [...flights.values()];
  expect(live).toHaveLength(1);
  return live[0]!;
};

const DEP = { airline: 'CA', number: '1501', dep: 'PEK', arr: 'SHA', originDate: '2025-03-14' };
const ARR = { airline: 'MU', number: '5102', dep: 'SHA', arr: 'PEK', originDate: '2025-03-14' };

describe('AIDX decode', () => {
  it('matches by namespace and local name whatever the prefix: aidx:, x:, default namespace, all the same message', () => {
    const body = (p: string) => notif([leg({ ...DEP, data: time('OFB', 'SCT', '2025-03-14T01:30:00Z', p) }, p)], { prefix: p, seq: '7' });
    const [a, b, c] = ['aidx', 'x', ''].map((p) => aidx(body(p)));
    expect(a!.legs[0]!.fields.scheduledTime).toBe('2025-03-14T01:30:00.000Z');
    expect(b!.legs).toEqual(a!.legs);
    expect(c!.legs).toEqual(a!.legs);
  });

  it('an element of the AIDX local name in another namespace is not AIDX (MALFORMED root, as any non-MSG root)', () => {
    const xml = notif([leg(DEP)]).replace('http://www.iata.org/IATA/2007/00', 'urn:not:iata');
    expect(failed(xml).errorClass).toBe('MALFORMED');
  });

  it('inside a feed wrapper: the header is read (sequence, sending system) and the AIDX element decided', () => {
    const m = aidx(wrapped(notif([leg(DEP)], { originator: 'SITA' }), { seq: '127815', system: 'AODB', type: 'FLSH' }));
    expect(m.header).toEqual({ SequenceNumber: '127815', SendingSystem: 'AODB', MessageType: 'FLSH' });
    expect(m.sequence).toBe('127815');
    expect(m.sender).toBe('SITA');
    expect(m.legs[0]!.key).toMatchObject({ airline: 'CA', flightNumber: '1501', direction: 'D' });
  });

  it('accepts versions 15.1 to 21.3 and parks the others as UNSUPPORTED', () => {
    for (const v of ['15.1', '16.1', '19.2', '21.3']) expect(aidx(notif([leg(DEP)], { version: v })).version).toBe(v);
    for (const v of ['14.2', '21.4', '', 'x']) {
      const r = failed(notif([leg(DEP)], { version: v }));
      expect([r.errorClass, r.error]).toEqual(['UNSUPPORTED', expect.stringContaining('not supported')]);
    }
  });

  it('maps the time pairs by direction; xsi:nil clears; an unmapped pair is kept; zone-less times are airport-local', () => {
    const dep = aidx(notif([leg({ ...DEP, data: [
      time('OFB', 'SCT', '2025-03-14T01:30:00Z'), time('OFB', 'EST', '2025-03-14T01:45:00Z'), time('OFB', 'ACT', null),
      time('OFB', 'TAR', '2025-03-14T01:40:00+00:00'), time('TKO', 'CAL', '2025-03-14T10:05:00'), time('TKO', 'TAR', '2025-03-14T02:00:00Z'),
    ].join('') })])).legs[0]!;
    expect(dep.fields).toMatchObject({
      scheduledTime: '2025-03-14T01:30:00.000Z', estimatedTime: '2025-03-14T01:45:00.000Z', eobt: '2025-03-14T01:45:00.000Z',
      actualTime: null, tobt: '2025-03-14T01:40:00.000Z', ctot: '2025-03-14T02:05:00.000Z',
    });
    expect(dep.unmappedTimes).toEqual([{ qualifier: 'TKO', timeType: 'TAR', repeatIndex: null, value: '2025-03-14T02:00:00.000Z' }]);
    expect(Object.hasOwn(dep.fields, 'cobt')).toBe(false); // absent: unchanged
    const arr = aidx(notif([leg({ ...ARR, data: time('ONB', 'SCT', '2025-03-14T04:00:00Z') + time('ONB', 'ACT', '2025-03-14T04:07:00Z') })])).legs[0]!;
    expect(arr.fields).toMatchObject({ scheduledTime: '2025-03-14T04:00:00.000Z', actualTime: '2025-03-14T04:07:00.000Z' });
    expect(arr.key.direction).toBe('A');
  });

  it('resources of the highest usage and our side only; stands, gates, belts, terminal; unknown elements and TPA_Extension kept', () => {
    const m = aidx(notif([leg({
      ...ARR,
      data: resources('Planned', 'Arrival', stand('P1') + gate('G1'))
        + resources('Actual', 'Arrival', stand('210') + gate('E12') + belt('7') + terminal('T3') + '<aidx:Future>x</aidx:Future>')
        + '<aidx:SomethingNew>1</aidx:SomethingNew>',
      after: '<aidx:TPA_Extension><own:Id xmlns:own="urn:own">42</own:Id></aidx:TPA_Extension>',
    })])).legs[0]!;
    expect(m.fields).toMatchObject({ currentStand: '210', terminal: 'T3' });
    expect(m.lists.stands?.map((s) => s.code)).toEqual(['210']);
    expect(m.lists.gates?.map((s) => s.code)).toEqual(['E12']);
    expect(m.lists.belts?.map((s) => s.code)).toEqual(['7']);
    expect(m.kept).toEqual(expect.arrayContaining(['SomethingNew', 'TPA_Extension']));
  });

  it('CODEC_ERROR (parked) for a leg without a usable identifier, MALFORMED for non-XML', () => {
    expect(failed(notif([leg({ ...DEP, airline: '' })])).errorClass).toBe('CODEC_ERROR');
    expect(failed(notif([leg({ ...DEP, originDate: 'soon' })])).error).toContain('OriginDate');
    expect(failed(notif(['<aidx:FlightLeg><aidx:LegData/></aidx:FlightLeg>'])).error).toContain('LegIdentifier');
    expect(failed(notif([])).errorClass).toBe('CODEC_ERROR');
    expect(failed(notif([leg({ ...DEP, data: time('OFB', 'EST', 'tomorrow') })])).errorClass).toBe('CODEC_ERROR');
    expect(failed('<aidx:IATA_AIDX_FlightLegNotifRQ').errorClass).toBe('MALFORMED');
  });

  it('a leg that touches neither end at our airport is left out; a message of only such legs is UNSUPPORTED naming the airports', () => {
    const r = failed(notif([leg({ ...DEP, dep: 'CAN', arr: 'SHA' })]));
    expect([r.errorClass, r.error]).toEqual(['UNSUPPORTED', expect.stringMatching(/not our airport.*CAN→SHA.*PEK/)]);
    const m = aidx(notif([leg({ ...DEP, dep: 'CAN', arr: 'SHA' }), leg(DEP)]));
    expect(m.legs.map((l) => l.index)).toEqual([2]);
    expect(m.otherAirportLegs).toEqual(['leg 1 CA1501 CAN→SHA']);
    expect(failed(notif([leg(DEP)]), null).error).toContain('MSGX_AIRPORT_IATA');
  });

  it('identity: sender + sequence + leg keys; none without a sequence number', () => {
    const one = aidx(notif([leg(DEP)], { seq: '900' }));
    const other = aidx(notif([leg({ ...DEP, number: '1502' })], { seq: '900' }));
    expect(aidxIdentityKey(one)).toBe(`AODB|AIDX|FLEG|900|${legFfid(one.legs[0]!.key)}`);
    expect(aidxIdentityKey(other)).not.toBe(aidxIdentityKey(one)); // one number, two legs of a transaction
    expect(aidxIdentityKey(aidx(notif([leg(DEP)])))).toBeNull();
    // A day's schedule: the key list is kept as its count and a digest, which any one leg changes.
    const day = (n: string) => aidx(notif(Array.from({ length: 40 }, (_, i) => leg({ ...DEP, number: i === 39 ? n : String(2000 + i) })), { seq: '901' }));
    expect(aidxIdentityKey(day('9999'))).toMatch(/^AODB\|AIDX\|FLEG\|901\|40 legs fnv128:[0-9a-f]{32}$/);
    expect(aidxIdentityKey(day('9998'))).not.toBe(aidxIdentityKey(day('9999')));
    expect(aidxIdentityKey(day('9999'))).toBe(aidxIdentityKey(day('9999')));
  });
});

describe('AIDX decide', () => {
  it('creates the leg with a flid from its key (in the decision), and the same key finds it again', () => {
    const { flights, decisions } = run([
      notif([leg({ ...DEP, data: status('SCH') + resources('Actual', 'Departure', stand('101') + gate('E1')) + time('OFB', 'SCT', '2025-03-14T01:30:00Z') + aircraft('A320', 'B-1234') })]),
      notif([leg({ ...DEP, data: time('OFB', 'EST', '2025-03-14T02:10:00Z') + delay('93', 40) })]),
    ]);
    const f = soleFlight(flights);
    const created = decisions[0]!.changes[0]!;
    expect(created.type).toBe('FlightCreated');
    expect(BigInt(f.flid) >= AIDX_FLID_BASE).toBe(true);
    expect(findLeg(flights, f.ffid!)).toEqual({ flid: f.flid, state: f });
    expect(f).toMatchObject({
      airline: 'CA', flightNo: '1501', direction: 'D', operationDay: '2025-03-14', status: 'SCH',
      scheduledTime: '2025-03-14T01:30:00.000Z', estimatedTime: '2025-03-14T02:10:00.000Z', currentStand: '101',
      aircraftType: 'A320', registration: 'B-1234',
    });
    expect(f.gates.map((g) => g.code)).toEqual(['E1']);
    expect(f.delays).toEqual([{ code: '93', start: null, durationMinutes: 40 }]);
    expect(f.adjacent.map((p) => p.airport)).toEqual(['SHA']);
    expect(decisions[1]!.changes.every((c) => c.type !== 'FlightCreated')).toBe(true);
  });

  it('an absent element changes nothing, xsi:nil clears, a gate and stand change replace the lists', () => {
    const { flights } = run([
      notif([leg({ ...ARR, data: resources('Actual', 'Arrival', stand('210') + gate('E12')) + time('ONB', 'SCT', '2025-03-14T04:00:00Z') + time('ONB', 'EST', '2025-03-14T04:20:00Z') })]),
      notif([leg({ ...ARR, data: resources('Actual', 'Arrival', stand('215') + gate('E14')) })]),
      notif([leg({ ...ARR, data: time('ONB', 'EST', null) })]),
    ]);
    const f = soleFlight(flights);
    expect(f).toMatchObject({ scheduledTime: '2025-03-14T04:00:00.000Z', estimatedTime: null, currentStand: '215' });
    expect(f.stands.map((s) => s.code)).toEqual(['215']);
    expect(f.gates.map((s) => s.code)).toEqual(['E14']);
  });

  it('cancellation, then reinstatement; diversion and air return are recognised from the status codes', () => {
    const seen = run([
      notif([leg({ ...DEP, data: status('SCH') })]),
      notif([leg({ ...DEP, data: status('CX') })], { timeStamp: '2025-03-14T00:30:00Z' }),
    ]);
    expect(soleFlight(seen.flights)).toMatchObject({ status: 'CX', cancelTime: '2025-03-14T00:30:00.000Z' });
    run([notif([leg({ ...DEP, data: status('SCH') })])], seen.flights, 3);
    expect(soleFlight(seen.flights)).toMatchObject({ status: 'SCH', cancelTime: null });
    const returned = run([notif([leg({ ...DEP, data: status('RT') })])]);
    expect(soleFlight(returned.flights).returnType).toBe('A');
    // An arrival of ours that went elsewhere: the planned arrival history names us.
    const diverted = run([notif([leg({ ...ARR, arr: 'TSN', data: status('DV') + plannedArrival('PEK') })])]);
    expect(soleFlight(diverted.flights)).toMatchObject({ direction: 'A', diversionAirport: 'TSN', diversionDirection: 'A' });
  });

  it('SpecialAction Delete deletes the flight (FlightDeleted, like FDEL); later legs of it are not applied; a Delete of an unknown leg is skipped', () => {
    const { flights, decisions } = run([
      notif([leg({ ...DEP, data: status('SCH') })]),
      notif([leg({ ...DEP, special: 'Delete' })]),
      notif([leg({ ...DEP, data: status('DEP') })]),
    ]);
    expect(decisions[1]!.changes.map((c) => c.type)).toContain('FlightDeleted');
    expect(soleFlight(flights)).toMatchObject({ deleted: true, status: 'SCH' });
    expect(decisions[2]!.skipped).toBe('flight-deleted');
    expect(run([notif([leg({ ...DEP, special: 'Delete' })])]).decisions[0]!.skipped).toBe('unknown-flight');
  });

  it('several legs are one decision; the decision notes show the header and the fields each leg used', () => {
    const { flights, decisions } = run([wrapped(notif([leg(DEP), leg(ARR)], { seq: '5' }), { seq: '5', system: 'AODB' })]);
    expect(flights.size).toBe(2);
    const notes = decisions[0]!.notes ?? [];
    expect(notes[0]).toMatch(/AIDX 21\.3 from AODB seq 5; header SequenceNumber=5 SendingSystem=AODB/);
    expect(notes.slice(1).every((n) => /created/.test(n))).toBe(true);
  });

  it('flids are a pure function of the log: deciding the same messages again gives the same flids; a taken slot moves to the next', () => {
    const xmls = [notif([leg(DEP), leg(ARR), leg({ ...DEP, number: '1777' })])];
    const a = [...run(xmls).flights.keys()].sort();
    const b = [...run(xmls).flights.keys()].sort();
    expect(a).toEqual(b);
    const ffid = legFfid(aidx(xmls[0]!).legs[0]!.key);
    const slot = findLeg(new Map(), ffid).flid;
    const taken = new Map<string, FlightState>([[slot, { ...soleFlight(run([notif([leg(ARR)])]).flights), flid: slot }]]);
    expect(findLeg(taken, ffid).flid).toBe((BigInt(slot) + 1n).toString());
  });
});
