/**
 * Both dialects, one flight per leg (docs/contract/aidx.md "Finding a leg"): an AIDX leg finds the
 * flight a SIS plan or FLOP created by its leg key (src/domain/legIndex.ts), whichever map it is
 * decided against — a plain map (scanned) or the indexed map redecide uses (the pump's maps:
 * test/write/legIndexModel.unit.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { decide } from '../../src/domain/decide.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { legIndexKey, legKeyOf, legNumber, LegIndexedFlights } from '../../src/domain/legIndex.ts';
import { aidxMessage } from '../../src/domain/aidxOut/aidxMessage.ts';
import { codeShare, leg, notif, resources, stand, status, time } from './support/aidxXml.ts';
import { fltr, schdXml } from './support/buildXml.ts';

const TZ = 'Asia/Shanghai';

/** Decode (our airport PEK) and decide every message in order against `flights`, applying each. */
function run(flights: Map<string, FlightState>, xmls: readonly string[]) {
  return xmls.map((xml, i) => {
    const r = decode(xml, { tz: TZ, airportIata: 'PEK' });
    if (!r.ok) throw new Error(`${r.errorClass}: ${r.error}`);
    const id = String(flights.size * 100 + i + 1);
    const d = decide(flights, r.message, undefined, { msgId: id });
    if (d.skipped === undefined) applyDecision(flights, { position: id, msgId: id, recordedAt: '2025-03-14T00:00:00.000Z', changes: d.changes });
    return d;
  });
}

/** A SIS plan for PEK: CA1501 out to SHA at 09:30, MU5102 in from SHA at 12:00, CA1777 out to CAN. */
const PLAN = schdXml('DNLD', [
  fltr('880001', '14MAR250930', '<FFID>CA-CA1501-D</FFID><ALCD>CA</ALCD><FLNO>CA1501</FLNO><MVIN>D</MVIN><ROUT RTNO="1"><APCD>SHA</APCD></ROUT>'),
  fltr('880002', '14MAR251200', '<FFID>MU-MU5102-A</FFID><ALCD>MU</ALCD><FLNO>MU5102</FLNO><MVIN>A</MVIN><ROUT RTNO="1"><APCD>SHA</APCD></ROUT>'),
  fltr('880003', '14MAR251300', '<FFID>CA-CA1777-D</FFID><ALCD>CA</ALCD><FLNO>CA1777</FLNO><MVIN>D</MVIN><ROUT RTNO="1"><APCD>CAN</APCD></ROUT>'),
], { seqn: '1', dttm: '20250313200000' });

const DEP_UPDATE = notif([leg({ airline: 'CA', number: '1501', dep: 'PEK', arr: 'SHA', data: status('ETD') + resources('Actual', 'Departure', stand('105')) + time('OFB', 'EST', '2025-03-14T02:10:00Z') })], { seq: '11' });
const ARR_UPDATE = notif([leg({ airline: 'MU', number: '05102', dep: 'SHA', arr: 'PEK', data: time('ONB', 'ACT', '2025-03-14T04:07:00Z') })], { seq: '12' });
/** CA1777 to SHA: the plan's CA1777 flies to CAN, so this is another leg. */
const OTHER_LEG = notif([leg({ airline: 'CA', number: '1777', dep: 'PEK', arr: 'SHA', data: time('OFB', 'SCT', '2025-03-14T05:00:00Z') })], { seq: '13' });

describe('leg keys', () => {
  it('a flight number compares without the airline in front and without leading zeros', () => {
    expect(legNumber('CA1501', 'CA')).toBe('1501');
    expect(legNumber('1501', 'CA')).toBe('1501');
    expect(legNumber('CA0081A', 'CA')).toBe('81A');
    expect(legNumber('0081a', null)).toBe('81A');
    expect(legNumber(null, 'CA')).toBeNull();
  });

  it('a flight is indexed by airline, number, direction and operation day; without a direction by none', () => {
    const flights = new Map<string, FlightState>();
    run(flights, [PLAN]);
    expect(legKeyOf(flights.get('880001')!)).toBe(legIndexKey('CA', '1501', 'D', '2025-03-14'));
    expect(legKeyOf({ ...flights.get('880001')!, direction: null })).toBeNull();
  });
});

describe('AIDX updates of SIS flights', () => {
  for (const [name, make] of [['plain map (scanned)', () => new Map<string, FlightState>()], ['indexed map', () => new LegIndexedFlights()]] as const) {
    it(`${name}: the plan's flights take the AIDX updates; no second flight; a leg to another airport is its own flight`, () => {
      const flights = make();
      const [, dep, arr, other] = run(flights, [PLAN, DEP_UPDATE, ARR_UPDATE, OTHER_LEG]);
      expect(dep!.changes.map((c) => 'flid' in c && c.flid)).toEqual(expect.arrayContaining(['880001']));
      expect(dep!.notes?.join('\n')).toContain('→ flid 880001 updated (by leg key)');
      expect(flights.get('880001')).toMatchObject({ status: 'ETD', currentStand: '105', estimatedTime: '2025-03-14T02:10:00.000Z', eobt: '2025-03-14T02:10:00.000Z' });
      expect(arr!.notes?.join('\n')).toContain('→ flid 880002 updated (by leg key)');
      expect(flights.get('880002')!.actualTime).toBe('2025-03-14T04:07:00.000Z');
      // CA1777 PEK→SHA is not the plan's CA1777 PEK→CAN: AIDX creates it.
      expect(other!.notes?.join('\n')).toMatch(/flid 9\d{18} created/);
      expect(flights.size).toBe(4);
    });
  }

  it('a deleted SIS flight takes no AIDX update (flight-deleted), and an AIDX Delete deletes a SIS flight', () => {
    const flights = new Map<string, FlightState>();
    const del = notif([leg({ airline: 'MU', number: '5102', dep: 'SHA', arr: 'PEK', special: 'Delete' })], { seq: '21' });
    const [, d, again] = run(flights, [PLAN, del, ARR_UPDATE]);
    expect(d!.changes).toEqual([expect.objectContaining({ type: 'FlightDeleted', flid: '880002' })]);
    expect(again!.skipped).toBe('flight-deleted');
    expect(flights.size).toBe(3);
  });

  it('code shares (docs/contract/aidx.md "Code shares"): CodeShareInfo of an operating leg is noted, no master field changes; AIDX out names none', () => {
    const flights = new Map<string, FlightState>();
    // MU5123 is the SIS code share (marketing flight) of CA1501: CSOP/CSFT/MAID name its operating flight.
    const share = schdXml('DNLD', [fltr('880004', '14MAR250930', '<ALCD>MU</ALCD><FLNO>MU5123</FLNO><MVIN>D</MVIN><CSOP>CA</CSOP><CSFT>CA1501</CSFT><MAID>880001</MAID><ROUT RTNO="1"><APCD>SHA</APCD></ROUT>')], { seqn: '3', dttm: '20250313200100' });
    const upd = notif([leg({ airline: 'CA', number: '1501', dep: 'PEK', arr: 'SHA', data: status('ETD') + codeShare('MU', '5123') + codeShare('FM', '9501') })], { seq: '41' });
    const [, , d] = run(flights, [PLAN, share, upd]);
    const notes = d!.notes?.join('\n') ?? '';
    expect(notes).toContain('→ flid 880001 updated (by leg key)');
    expect(notes).toContain('code shares MU5123,FM9501');
    expect(JSON.stringify(d!.changes)).not.toMatch(/master/);
    expect(flights.size).toBe(4);
    const master = (f: FlightState) => [f.masterAirline, f.masterFlightNo, f.masterFlid];
    expect(master(flights.get('880001')!)).toEqual([null, null, null]);
    expect(master(flights.get('880004')!)).toEqual(['CA', 'CA1501', '880001']);
    const out = (flid: string) => {
      const o = aidxMessage(flights.get(flid)!, '9', '2025-03-14T00:00:00.000Z', { airport: 'PEK', originator: 'MSGX' });
      if (!('xml' in o)) throw new Error(o.skipped);
      return o.xml;
    };
    // Neither the operating leg (its marketing flights are not published) nor the marketing one
    // (the operating flight is not its code share) carries CodeShareInfo.
    expect(out('880001')).not.toContain('CodeShareInfo');
    expect(out('880004')).toContain('<LegIdentifier><Airline>MU</Airline><FlightNumber>5123</FlightNumber>');
    expect(out('880004')).not.toContain('CodeShareInfo');
  });

  it('an arrival sent without a scheduled time finds the flight that lands the day after its origin date', () => {
    const flights = new Map<string, FlightState>();
    const night = schdXml('DNLD', [fltr('880010', '15MAR250510', '<ALCD>MU</ALCD><FLNO>MU5190</FLNO><MVIN>A</MVIN>')], { seqn: '2', dttm: '20250314200000' });
    const upd = notif([leg({ airline: 'MU', number: '5190', dep: 'URC', arr: 'PEK', originDate: '2025-03-14', data: time('ONB', 'EST', '2025-03-14T21:20:00Z') })], { seq: '31' });
    run(flights, [night, upd]);
    expect(flights.size).toBe(1);
    expect(flights.get('880010')!.estimatedTime).toBe('2025-03-14T21:20:00.000Z');
  });
});

describe('A-CDM times from AIDX land on the fields the SIS FLOPs set (docs/contract/aidx.md "A-CDM times")', () => {
  const plan = (): Map<string, FlightState> => {
    const flights = new Map<string, FlightState>();
    run(flights, [PLAN]);
    return flights;
  };
  const at = '2025-03-14T02:20:00Z';
  // [SIS FLOP subtype, its element's value (local), flight, AIDX qualifier, time type, the field both set]
  const pairs = [
    ['EOBT', '880001', 'OFB', 'EST', 'eobt'],
    ['TOBT', '880001', 'OFB', 'TAR', 'tobt'],
    ['COBT', '880001', 'OFB', 'CAL', 'cobt'],
    ['CTOT', '880001', 'TKO', 'CAL', 'ctot'],
    ['EGST', '880001', 'SRT', 'ACT', 'egst'],
    ['NEAT', '880001', 'ONB', 'EST', 'nextEstimatedArrival'],
    ['NAAT', '880001', 'ONB', 'ACT', 'nextActualArrival'],
    ['PEDT', '880002', 'OFB', 'EST', 'prevEstimatedDeparture'],
    ['PADT', '880002', 'OFB', 'ACT', 'prevActualDeparture'],
  ] as const;
  for (const [styp, flid, q, t, field] of pairs) {
    it(`${q} ${t} sets ${field}, as FLOP ${styp} does`, () => {
      const sis = plan();
      run(sis, [`<?xml version="1.0" encoding="UTF-8"?>\n<MSG><META><SNDR>AODB</SNDR><SEQN>9</SEQN><DTTM>20250314080000</DTTM><TYPE>FLOP</TYPE><STYP>${styp}</STYP></META><FLOP><FLID>${flid}</FLID><FFID>X</FFID><${styp}>14MAR251020</${styp}></FLOP></MSG>`]);
      const aidx = plan();
      const dep = flid === '880001';
      run(aidx, [notif([leg({ airline: dep ? 'CA' : 'MU', number: dep ? '1501' : '5102', dep: dep ? 'PEK' : 'SHA', arr: dep ? 'SHA' : 'PEK', data: time(q, t, at) })], { seq: '9' })]);
      expect(sis.get(flid)![field]).toBe('2025-03-14T02:20:00.000Z');
      expect(aidx.get(flid)![field]).toBe(sis.get(flid)![field]);
    });
  }

  it('TSAT, TTOT, ETOT, ATOT, ELDT, ALDT have no field: kept in the decision, no field changed', () => {
    const flights = plan();
    const before = { ...flights.get('880001')! };
    const data = ['SRT TAR', 'TKO TAR', 'TKO EST', 'TKO ACT'].map((p) => time(p.split(' ')[0]!, p.split(' ')[1]!, at)).join('');
    const [d] = run(flights, [notif([leg({ airline: 'CA', number: '1501', dep: 'PEK', arr: 'SHA', data })], { seq: '9' })]);
    expect(d!.changes).toEqual([]);
    expect(d!.notes?.join('\n')).toContain('times kept SRT/TAR=2025-03-14T02:20:00.000Z,TKO/TAR=2025-03-14T02:20:00.000Z,TKO/EST=2025-03-14T02:20:00.000Z,TKO/ACT=');
    expect(flights.get('880001')).toEqual(before);
    const [a] = run(flights, [notif([leg({ airline: 'MU', number: '5102', dep: 'SHA', arr: 'PEK', data: time('TDN', 'EST', at) + time('TDN', 'ACT', at) })], { seq: '10' })]);
    expect(a!.notes?.join('\n')).toContain('times kept TDN/EST=2025-03-14T02:20:00.000Z,TDN/ACT=');
  });
});
