/** The 50 FLOP handlers: one case per subtype pinning its element → field/list mapping, plus skips. */
import { describe, expect, it } from 'vitest';
import { FLOP_SUBTYPES } from '../../src/domain/catalogue.ts';
import type { Change } from '../../src/domain/changes.ts';
import { decide } from '../../src/domain/decide.ts';
import { toFlightView } from '../../src/domain/flightView.ts';
import { flopXml, fltr, schdXml } from './support/buildXml.ts';
import { decodeOk } from './support/decodeOk.ts';
import { fold, step } from './support/seedFlights.ts';

const at = (hhmm: string): string => new Date(`2025-03-14T${hhmm.slice(0, 2)}:${hhmm.slice(2)}:00+08:00`).toISOString();
const alloc = { class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null };

const SEED = schdXml('ADFT', [
  fltr('1', '14MAR251040', '<ALCD>CA</ALCD><FLNO>CA1502</FLNO><MVIN>D</MVIN><ESTT>14MAR251040</ESTT>'),
  fltr('2', '14MAR251200', '<ALCD>MU</ALCD><FLNO>MU5123</FLNO><MVIN>D</MVIN>'),
]);

type WithoutFlid<T> = T extends unknown ? Omit<T, 'flid'> : never;
type Case = [styp: string, inner: string, changes: WithoutFlid<Change>[]];
const updated = (fields: object): WithoutFlid<Change> => ({ type: 'FlightUpdated', fields });

const CASES: Case[] = [
  ['ACFT', '<ACFT>738</ACFT>', [updated({ aircraftType: '738' })]],
  ['RENO', '<RENO>B1234</RENO>', [updated({ registration: 'B1234' })]],
  ['TAOP', '<TAOP>MU</TAOP><TAFL>MU5122</TAFL><TAID>880099</TAID>', [updated({ linkAirline: 'MU', linkFlightNo: 'MU5122', linkFlid: '880099' })]],
  ['TRML', '<TRML>T2</TRML>', [updated({ terminal: 'T2' })]],
  ['FLTY', '<FLTY>G</FLTY>', [updated({ serviceType: 'G' })]],
  ['FLIN', '<FLIN>M</FLIN>', [updated({ flightNature: 'M' })]],
  ['ESTT', '<ESTT>14MAR251105</ESTT>', [updated({ estimatedTime: at('1105') })]],
  ['ACTT', '<ACTT>14MAR251112</ACTT>', [updated({ actualTime: at('1112') })]],
  ['PADT', '<PADT>14MAR250716</PADT>', [updated({ prevActualDeparture: at('0716') })]],
  ['BOTM', '<BOTM>14MAR251005</BOTM>', [updated({ boardingOpen: at('1005') })]],
  ['LACL', '<LACL>14MAR251020</LACL>', [updated({ lastCall: at('1020') })]],
  ['FINT', '<FINT>14MAR251027</FINT>', [updated({ boardingClosed: at('1027') })]],
  ['CNCL', '<CNCL>14MAR251030</CNCL>', [updated({ cancelTime: at('1030') })]],
  ['FTSS', '<FTSS>DLY</FTSS>', [updated({ status: 'DLY' })]],
  ['EXSS', '<EXSC>DEL</EXSC><EXSR>延误</EXSR>', [updated({ publicStatus: 'DEL', publicRemark: '延误' })]],
  ['FDIV', '<FDIV DDES="PVG" DDIR="TO"/>', [updated({ diversionAirport: 'PVG', diversionDirection: 'TO' })]],
  ['FRET', '<FRET REID="G"/>', [updated({ returnType: 'G' })]],
  ['STND', '<STND>R31</STND>', [updated({ currentStand: 'R31' })]],
  ['PSDT', '<PSDT PSNO="1"><PSST>212</PSST><STST>14MAR250925</STST><STET>14MAR251000</STET></PSDT>',
    [{ type: 'StandsReplaced', items: [{ ...alloc, seq: 1, code: '212', scheduledStart: at('0925'), scheduledEnd: at('1000') }] }]],
  ['GTDT', '<GTDT GTNO="1"><GATE>G15</GATE><PGOT>14MAR251000</PGOT><PGCT>14MAR251025</PGCT><GOTM>14MAR251002</GOTM><GCTM>14MAR251026</GCTM><GTYP>D</GTYP></GTDT>',
    [{ type: 'GatesReplaced', items: [{ ...alloc, seq: 1, code: 'G15', kind: 'D', scheduledStart: at('1000'), scheduledEnd: at('1025'), actualStart: at('1002'), actualEnd: at('1026') }] }]],
  ['CKDT', '<CKDT CKNO="2"><CHKC>A05</CHKC><CCLS>F</CCLS><PCOT>14MAR250840</PCOT><PCCT>14MAR251000</PCCT><COTM>14MAR250841</COTM><CCTM>14MAR251001</CCTM><CTYP>D</CTYP></CKDT>',
    [{ type: 'CountersReplaced', items: [{ seq: 2, code: 'A05', class: 'F', kind: 'D', scheduledStart: at('0840'), scheduledEnd: at('1000'), actualStart: at('0841'), actualEnd: at('1001') }] }]],
  ['CLDT', '<CLDT CLNO="1"><BELT>B07</BELT><BCLS>X</BCLS><PCOT>14MAR250940</PCOT><PCCT>14MAR251010</PCCT><FBAG>14MAR250944</FBAG><LBAG>14MAR251002</LBAG><BTYP>I</BTYP></CLDT>',
    [{ type: 'BeltsReplaced', items: [{ seq: 1, code: 'B07', class: 'X', kind: 'I', scheduledStart: at('0940'), scheduledEnd: at('1010'), actualStart: at('0944'), actualEnd: at('1002') }] }]],
  ['CHDT', '<CHDT CHNO="1"><CHUT>M08</CHUT><CCLS>Y</CCLS><PCBT>14MAR250840</PCBT><PCET>14MAR251010</PCET><CBTM>14MAR250845</CBTM><CETM>14MAR251011</CETM><CTYP>D</CTYP></CHDT>',
    [{ type: 'ChutesReplaced', items: [{ seq: 1, code: 'M08', class: 'Y', kind: 'D', scheduledStart: at('0840'), scheduledEnd: at('1010'), actualStart: at('0845'), actualEnd: at('1011') }] }]],
  ['ABTM', '<ABTM ASNO="1"><ABDG>212A</ABDG><ABOP>A</ABOP><AOTM>14MAR250927</AOTM></ABTM><ABTM ASNO="2"><ABDG>212A</ABDG><ABOP>D</ABOP><AOTM>14MAR251030</AOTM></ABTM>',
    [{ type: 'BridgesReplaced', items: [{ seq: 1, bridge: '212A', operation: 'A', time: at('0927') }, { seq: 2, bridge: '212A', operation: 'D', time: at('1030') }] }]],
  ['CHOT', '<CHOT CSNO="1"><CHTM>14MAR250926</CHTM><CHID>212</CHID><CHST>ON</CHST></CHOT>',
    [{ type: 'ChocksReplaced', items: [{ seq: 1, stand: '212', onOff: 'ON', time: at('0926') }] }]],
  ['DELY', '<DELY CODE="93" STRT="14MAR251040" DURA="0025"/><DELY CODE="81" STRT="14MAR251040" DURA="0110"/>',
    [{ type: 'DelaysReplaced', items: [{ code: '81', start: at('1040'), durationMinutes: 70 }, { code: '93', start: at('1040'), durationMinutes: 25 }] }]],
  ['SRVT', '<SRVT><SRTC>CAT</SRTC><SRQT>1</SRQT><SRST>14MAR250950</SRST><SRET>14MAR251020</SRET><SRPR>SKYCHEF</SRPR><SANR>R1</SANR><SARR>late</SARR></SRVT>',
    [{ type: 'ServicesReplaced', items: [{ code: 'CAT', quantity: 1, start: at('0950'), end: at('1020'), provider: 'SKYCHEF', abnormalReason: 'R1', abnormalRemark: 'late' }] }]],
  ['ERUT', '<ERUT RTNO="2"><APCD>TAO</APCD><SCAT>14MAR251805</SCAT></ERUT><ERUT RTNO="1"><APCD>ICN</APCD><SCDT>14MAR251450</SCDT></ERUT>',
    [{ type: 'RouteReplaced', items: [
      { seq: 1, airport: 'ICN', scheduledArrival: null, scheduledDeparture: at('1450') },
      { seq: 2, airport: 'TAO', scheduledArrival: at('1805'), scheduledDeparture: null },
    ] }]],
  ['FDEL', '<FDEL/>', [{ type: 'FlightDeleted', reason: 'fdel' }]],
  // The whole interface (interface.md).
  ['EOBT', '<EOBT>14mar251045</EOBT>', [updated({ eobt: at('1045') })]],
  ['TOBT', '<TOBT>14MAR251046</TOBT>', [updated({ tobt: at('1046') })]],
  ['COBT', '<COBT>14Mar251047</COBT>', [updated({ cobt: at('1047') })]],
  ['CTOT', '<CTOT>14MAR251102</CTOT>', [updated({ ctot: at('1102') })]],
  ['IEST', '<IEST>14MAR250912</IEST>', [updated({ iest: at('0912') })]],
  ['APPT', '<APPT>14MAR250901</APPT>', [updated({ appt: at('0901') })]],
  ['EGSR', '<EGSR>14MAR251047</EGSR>', [updated({ egsr: at('1047') })]],
  ['EGST', '<EGST>14MAR251049</EGST>', [updated({ egst: at('1049') })]],
  ['PEDT', '<PEDT>14MAR250715</PEDT>', [updated({ prevEstimatedDeparture: at('0715') })]],
  ['NEAT', '<NEAT>14MAR251255</NEAT>', [updated({ nextEstimatedArrival: at('1255') })]],
  ['NAAT', '<NAAT>14MAR251258</NAAT>', [updated({ nextActualArrival: at('1258') })]],
  ['FLAB', '<FLAB ARES="G">POOR VISIBILITY</FLAB>', [updated({ abnormalReason: 'G', abnormalRemark: 'POOR VISIBILITY' })]],
  ['HNAG', '<PHAG>100001</PHAG><FHAG>100002</FHAG><MHAG>100003</MHAG>', [updated({ agentPassenger: '100001', agentField: '100002', agentMaintenance: '100003' })]],
  ['MAXP', '<MAXP>158</MAXP>', [updated({ maxPassengers: 158 })]],
  ['REMC', '<REMC>Gate <![CDATA[A&B]]> closed</REMC>', [updated({ remark: 'Gate A&B closed' })]],
  ['RUNW', '<RUNW>02L</RUNW>', [updated({ runway: '02L' })]],
  ['VIPP', '<VIPP>2</VIPP><VIPR>1</VIPR>', [updated({ vipPassengers: 2, vipReserved: 1 })]],
  ['PORT', '<PORT>\n\t<POTM>14MAR250920</POTM>\n\t<POID>O</POID>\n</PORT>', [updated({ portTime: at('0920'), portCode: 'O' })]],
  ['VIPF', '<VIPF><VPCD>VC1001</VPCD><VFES>3</VFES></VIPF><VIPF><VPCD>VC1002</VPCD><VFES>0</VFES></VIPF>',
    [{ type: 'VipGuestsReplaced', items: [{ seq: 1, code: 'VC1001', escorts: 3 }, { seq: 2, code: 'VC1002', escorts: 0 }] }]],
  ['PSHT', '<PSHT PSHN = "1"><PSTM>14MAR251051</PSTM><PSID>OUT</PSID><PUST>214</PUST></PSHT>',
    [{ type: 'PushbacksReplaced', items: [{ seq: 1, time: at('1051'), kind: 'OUT', stand: '214' }] }]],
  ['TIPT', '<TIPT><TRTM>14MAR250955</TRTM><TRST>R07</TRST></TIPT><TIPT><TRTM>14MAR250940</TRTM><TRST>214</TRST></TIPT>',
    [{ type: 'TowsReplaced', items: [{ seq: 1, time: at('0955'), stand: 'R07' }, { seq: 2, time: at('0940'), stand: '214' }] }]],
];

/** Handler versions: 2 for the field subtypes since the whole interface (units set as a whole). */
const VERSION: Record<string, number> = { flopFields: 2, flopLists: 1, fdel: 1 };

describe('FLOP handlers, one per subtype', () => {
  it('covers every FLOP subtype of the catalogue', () => {
    expect(CASES.map(([s]) => s).sort()).toEqual([...FLOP_SUBTYPES].sort());
    expect(FLOP_SUBTYPES).toHaveLength(50);
  });

  it.each(CASES)('%s', (styp, inner, changes) => {
    const flights = fold([SEED]);
    const before = flights.get('1')!;
    const decision = decide(flights, decodeOk(flopXml(styp, [['1', inner]])));
    expect(decision.handler).toMatch(new RegExp(`\\.${styp}$`));
    expect(decision.handlerVersion).toBe(VERSION[decision.handler.split('.')[0]!]);
    expect(decision.skipped).toBeUndefined();
    expect(decision.changes).toEqual(changes.map((c) => ({ ...c, flid: '1' })));
    expect(flights.get('1')).toBe(before); // decide never touches the state it is given

    // Deciding the same message again on the result changes nothing (no version bump).
    step(flights, flopXml(styp, [['1', inner]]));
    expect(flights.get('1')!.stateVersion).toBe(before.stateVersion + 1);
    expect(decide(flights, decodeOk(flopXml(styp, [['1', inner]]))).changes).toEqual([]);
  });
});

describe('FLOP semantics', () => {
  it('CNCL sets a cancellation; an empty CNCL reinstates', () => {
    const flights = fold([SEED, flopXml('CNCL', [['1', '<CNCL>14MAR251030</CNCL>']])]);
    expect(toFlightView(flights.get('1')!)).toMatchObject({ cancelled: true, cancelTime: at('1030') });
    step(flights, flopXml('CNCL', [['1', '<CNCL/>']], { seqn: '2' }));
    expect(toFlightView(flights.get('1')!)).toMatchObject({ cancelled: false, cancelTime: null });
  });

  it('TAOP/TAFL/TAID are set as a unit: an element of it that is absent clears that part', () => {
    const flights = fold([SEED, flopXml('TAOP', [['1', '<TAOP>MU</TAOP><TAFL>MU1</TAFL><TAID>9</TAID>']])]);
    const d = step(flights, flopXml('TAOP', [['1', '<TAFL>MU2</TAFL><TAID/>']]));
    expect(d.changes).toEqual([{ type: 'FlightUpdated', flid: '1', fields: { linkAirline: null, linkFlightNo: 'MU2', linkFlid: null } }]);
    expect(flights.get('1')).toMatchObject({ linkAirline: null, linkFlightNo: 'MU2', linkFlid: null });
  });

  it('EXSC/EXSR are a unit too, in FLOPs and in plan records; HNAG agents are not (absent = unchanged)', () => {
    const flights = fold([SEED, flopXml('EXSS', [['1', '<EXSC>DEL</EXSC><EXSR>延误</EXSR>']]), flopXml('HNAG', [['1', '<PHAG>1</PHAG><FHAG>2</FHAG>']])]);
    expect(step(flights, flopXml('EXSS', [['1', '<EXSC>BOR</EXSC>']])).changes)
      .toEqual([{ type: 'FlightUpdated', flid: '1', fields: { publicStatus: 'BOR', publicRemark: null } }]);
    expect(step(flights, flopXml('HNAG', [['1', '<MHAG>3</MHAG>']])).changes)
      .toEqual([{ type: 'FlightUpdated', flid: '1', fields: { agentMaintenance: '3' } }]);
    step(flights, schdXml('ADFT', [fltr('1', '14MAR251040', '<EXSR>on time</EXSR>')]));
    expect(flights.get('1')).toMatchObject({ publicStatus: null, publicRemark: 'on time', agentPassenger: '1', agentField: '2', agentMaintenance: '3' });
  });

  it('TOBT without the element clears the target off-block time', () => {
    const flights = fold([SEED, flopXml('TOBT', [['1', '<TOBT>14MAR251046</TOBT>']])]);
    expect(step(flights, flopXml('TOBT', [['1', '']])).changes).toEqual([{ type: 'FlightUpdated', flid: '1', fields: { tobt: null } }]);
  });

  it('FLAB: attributes without text are a value (reason set, remark cleared); empty clears both', () => {
    const flights = fold([SEED, flopXml('FLAB', [['1', '<FLAB ARES="WEATHER">LATE INBOUND</FLAB>']])]);
    expect(step(flights, flopXml('FLAB', [['1', '<FLAB ARES="TECH"/>']])).changes)
      .toEqual([{ type: 'FlightUpdated', flid: '1', fields: { abnormalReason: 'TECH', abnormalRemark: null } }]);
    expect(toFlightView(flights.get('1')!).abnormal).toEqual({ reason: 'TECH', remark: null });
    step(flights, flopXml('FLAB', [['1', '<FLAB/>']]));
    expect(toFlightView(flights.get('1')!).abnormal).toBeNull();
  });

  it('plan records carry the new elements and apply them', () => {
    const flights = fold([schdXml('ADFT', [fltr('5', '14MAR251040',
      '<MVIN>D</MVIN><MAXP>158</MAXP><FLAB ARES="WEATHER">LATE INBOUND</FLAB><EOBT>14MAR251045</EOBT><RUNW>02L</RUNW>' +
      '<VIPF><VPCD>V1</VPCD></VIPF><TIPT><TRTM>14MAR251000</TRTM><TRST>R1</TRST></TIPT><PSHT PSHN="1"><PSID>OUT</PSID></PSHT>')])]);
    expect(toFlightView(flights.get('5')!)).toMatchObject({
      maxPassengers: 158, abnormal: { reason: 'WEATHER', remark: 'LATE INBOUND' }, runway: '02L',
      milestones: { estimatedOffBlock: at('1045') },
      vipGuests: [{ seq: 1, code: 'V1', escorts: null }], tows: [{ seq: 1, time: at('1000'), stand: 'R1' }],
      pushbacks: [{ seq: 1, time: null, kind: 'OUT', stand: null }],
    });
  });

  it.each([
    ['an empty element', '<FDIV/>', '<FRET/>'],
    ['empty attributes (DDES="" DDIR="", REID="")', '<FDIV DDES="" DDIR=""/>', '<FRET REID=""/>'],
  ])('FDIV and FRET are undone by %s', (_how, fdiv, fret) => {
    const flights = fold([SEED, flopXml('FDIV', [['1', '<FDIV DDES="PVG" DDIR="TO"/>']]), flopXml('FRET', [['1', '<FRET REID="A"/>']])]);
    expect(step(flights, flopXml('FDIV', [['1', fdiv]])).changes)
      .toEqual([{ type: 'FlightUpdated', flid: '1', fields: { diversionAirport: null, diversionDirection: null } }]);
    expect(step(flights, flopXml('FRET', [['1', fret]])).changes)
      .toEqual([{ type: 'FlightUpdated', flid: '1', fields: { returnType: null } }]);
  });

  it('a list subtype replaces the whole list; <X/> empties it', () => {
    const flights = fold([SEED,
      flopXml('GTDT', [['1', '<GTDT GTNO="1"><GATE>G1</GATE></GTDT><GTDT GTNO="2"><GATE>G2</GATE></GTDT>']])]);
    expect(step(flights, flopXml('GTDT', [['1', '<GTDT GTNO="3"><GATE>G3</GATE></GTDT>']])).changes)
      .toEqual([{ type: 'GatesReplaced', flid: '1', items: [{ ...alloc, seq: 3, code: 'G3' }] }]);
    expect(step(flights, flopXml('GTDT', [['1', '<GTDT/>']])).changes).toEqual([{ type: 'GatesReplaced', flid: '1', items: [] }]);
    expect(flights.get('1')!.gates).toEqual([]);
  });

  it('repeated blocks apply in order, each against the result of the previous', () => {
    const flights = fold([SEED]);
    const d = decide(flights, decodeOk(flopXml('ESTT', [
      ['1', '<ESTT>14MAR251100</ESTT>'], ['2', '<ESTT>14MAR251210</ESTT>'], ['1', '<ESTT>14MAR251040</ESTT>'],
    ])));
    expect(d.changes).toEqual([
      { type: 'FlightUpdated', flid: '1', fields: { estimatedTime: at('1100') } },
      { type: 'FlightUpdated', flid: '2', fields: { estimatedTime: at('1210') } },
      { type: 'FlightUpdated', flid: '1', fields: { estimatedTime: at('1040') } },
    ]);
  });

  it('every block for an unknown FLID: skipped unknown-flight, no change', () => {
    const flights = fold([SEED]);
    const d = decide(flights, decodeOk(flopXml('STND', [['889999', '<STND>101</STND>'], ['889998', '<STND>102</STND>']])));
    expect(d).toMatchObject({ ok: true, skipped: 'unknown-flight', changes: [], unknownFlids: ['889999', '889998'] });
  });

  it('some blocks for unknown FLIDs: the known ones apply, the unknown are reported', () => {
    const flights = fold([SEED]);
    const d = decide(flights, decodeOk(flopXml('STND', [['889999', '<STND>101</STND>'], ['2', '<STND>102</STND>']])));
    expect(d.skipped).toBeUndefined();
    expect(d.unknownFlids).toEqual(['889999']);
    expect(d.changes).toEqual([{ type: 'FlightUpdated', flid: '2', fields: { currentStand: '102' } }]);
  });

  it('a block applied without any change is not a skip', () => {
    const flights = fold([SEED]);
    const d = decide(flights, decodeOk(flopXml('ESTT', [['1', '<ESTT>14MAR251040</ESTT>']])));
    expect(d).toEqual({ ok: true, handler: 'flopFields.ESTT', handlerVersion: 2, changes: [], blocks: [{ flid: '1', outcome: 'applied' }] });
  });

  it('FLOP on a deleted flight is skipped flight-deleted; FDEL on it again is a no-op', () => {
    const flights = fold([SEED, flopXml('FDEL', [['1', '<FDEL/>']])]);
    expect(flights.get('1')).toMatchObject({ deleted: true, deletedReason: 'fdel' });
    const d = decide(flights, decodeOk(flopXml('ESTT', [['1', '<ESTT>14MAR251100</ESTT>']])));
    expect(d).toMatchObject({ skipped: 'flight-deleted', changes: [], deletedFlids: ['1'] });
    const again = decide(flights, decodeOk(flopXml('FDEL', [['1', '<FDEL/>']])));
    expect(again).toEqual({ ok: true, handler: 'fdel.FDEL', handlerVersion: 1, changes: [], blocks: [{ flid: '1', outcome: 'applied' }] });
  });

  it('FDEL for an unknown FLID is skipped unknown-flight', () => {
    const d = decide(fold([SEED]), decodeOk(flopXml('FDEL', [['7', '<FDEL/>']])));
    expect(d).toMatchObject({ skipped: 'unknown-flight', changes: [] });
  });

  it('a mix of unknown and deleted targets reports unknown-flight', () => {
    const flights = fold([SEED, flopXml('FDEL', [['1', '']])]);
    const d = decide(flights, decodeOk(flopXml('ACFT', [['1', '<ACFT>1</ACFT>'], ['9', '<ACFT>1</ACFT>']])));
    expect(d).toMatchObject({ skipped: 'unknown-flight', unknownFlids: ['9'], deletedFlids: ['1'] });
  });
});
