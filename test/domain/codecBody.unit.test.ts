/** Body rules of the codec: FLTR records, FLOP blocks, empty vs absent, lists, CODEC_ERROR. */
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { flopXml, fltr, msgXml, schdXml } from './support/buildXml.ts';
import { decodeFlop, decodeSchd, TZ } from './support/decodeOk.ts';

const FULL_RECORD = fltr('880002', '14MAR251040', [
  '<FFID>CA-CA1502-D-14MAR251040-D</FFID><ALCD>CA</ALCD><FLNO>CA1502</FLNO><MVIN>D</MVIN><FLTY>J</FLTY><FLIN>D</FLIN>',
  '<ACFT>321</ACFT><RENO>B6361</RENO><TAOP>CA</TAOP><TAFL>CA1501</TAFL><TAID>880001</TAID>',
  '<CSOP>MU</CSOP><CSFT>MU9999</CSFT><MAID>770001</MAID><TRML>T2</TRML><STND>212</STND>',
  '<ESTT>14MAR251045</ESTT><ACTT>20250314105000</ACTT><CNCL/><BOTM>14MAR251000</BOTM><LACL>14MAR251020</LACL>',
  '<FINT>14MAR251025</FINT><PHAG>PAX1</PHAG><FHAG>RAMP2</FHAG><MHAG>ENG3</MHAG><EXSC>BOR</EXSC><EXSR>登机 Boarding</EXSR>',
  '<FTSS>ONT</FTSS><PADT>14MAR250700</PADT><FDIV DDES="PVG" DDIR="from"/><FRET/>',
  '<ROUT RTNO="1"><APCD>PEK</APCD><SCAT>14MAR251300</SCAT></ROUT>',
  '<PSDT PSNO="2"><PSST>R31</PSST><STST>14MAR251005</STST><STET>14MAR251055</STET></PSDT>',
  '<PSDT PSNO="1"><PSST>212</PSST><STST>14MAR250925</STST><STET>14MAR251000</STET></PSDT>',
  '<GTDT GTNO="1"><GATE>G12</GATE><PGOT>14MAR251000</PGOT><PGCT>14MAR251025</PGCT><GOTM>14MAR251001</GOTM><GCTM>14MAR251026</GCTM><GTYP>D</GTYP></GTDT>',
  '<CKDT CKNO="1"><CHKC>A01</CHKC><CCLS>F</CCLS><PCOT>14MAR250840</PCOT><PCCT>14MAR251000</PCCT><COTM>14MAR250841</COTM><CCTM>14MAR251001</CCTM><CTYP>D</CTYP></CKDT>',
  '<CLDT CLNO="1"><BELT>B05</BELT><BCLS>X</BCLS><PCOT>14MAR250940</PCOT><PCCT>14MAR251010</PCCT><FBAG>14MAR250944</FBAG><LBAG>14MAR251002</LBAG><BTYP>D</BTYP></CLDT>',
  '<CHDT CHNO="1"><CHUT>M07</CHUT><CCLS>X</CCLS><PCBT>14MAR250840</PCBT><PCET>14MAR251010</PCET><CBTM>14MAR250845</CBTM><CETM>14MAR251011</CETM><CTYP>D</CTYP></CHDT>',
  '<ABTM ASNO="1"><ABDG>212A</ABDG><ABOP>A</ABOP><AOTM>14MAR250927</AOTM></ABTM>',
  '<CHOT CSNO="1"><CHTM>14MAR250926</CHTM><CHID>212</CHID><CHST>ON</CHST></CHOT>',
  '<DELY CODE="93" STRT="14MAR251040" DURA="0125"/>',
  '<SRVT><SRTC>CAT</SRTC><SRQT>2</SRQT><SRST>14MAR250950</SRST><SRET>14MAR251020</SRET><SRPR>SKYCHEF</SRPR><SANR>LATE</SANR><SARR>truck 晚到</SARR></SRVT>',
  '<ERUT RTNO="1"><APCD>TAO</APCD><SCDT>14MAR251040</SCDT></ERUT>',
].join(''));

// Local 14MAR25 HH:MM (Asia/Shanghai) as UTC.
const at = (hhmm: string): string => new Date(`2025-03-14T${hhmm.slice(0, 2)}:${hhmm.slice(2)}:00+08:00`).toISOString();

describe('FLTR records', () => {
  it('map every element of a full record to its field or list', () => {
    const m = decodeSchd(schdXml('DNLD', [FULL_RECORD]));
    expect(m.records).toEqual([{
      flid: '880002',
      scheduledTime: at('1040'),
      operationDay: '2025-03-14',
      fields: {
        ffid: 'CA-CA1502-D-14MAR251040-D', airline: 'CA', flightNo: 'CA1502', direction: 'D', scheduledTime: at('1040'),
        serviceType: 'J', flightNature: 'D', aircraftType: '321', registration: 'B6361',
        linkAirline: 'CA', linkFlightNo: 'CA1501', linkFlid: '880001',
        masterAirline: 'MU', masterFlightNo: 'MU9999', masterFlid: '770001', terminal: 'T2', currentStand: '212',
        estimatedTime: at('1045'), actualTime: at('1050'), cancelTime: null, boardingOpen: at('1000'), lastCall: at('1020'),
        boardingClosed: at('1025'), agentPassenger: 'PAX1', agentField: 'RAMP2', agentMaintenance: 'ENG3',
        publicStatus: 'BOR', publicRemark: '登机 Boarding', status: 'ONT', prevActualDeparture: at('0700'),
        diversionAirport: 'PVG', diversionDirection: 'FROM', returnType: null,
      },
      lists: {
        adjacent: [{ seq: 1, airport: 'PEK', scheduledArrival: at('1300'), scheduledDeparture: null }],
        stands: [
          { seq: 1, code: '212', class: null, kind: null, scheduledStart: at('0925'), scheduledEnd: at('1000'), actualStart: null, actualEnd: null },
          { seq: 2, code: 'R31', class: null, kind: null, scheduledStart: at('1005'), scheduledEnd: at('1055'), actualStart: null, actualEnd: null },
        ],
        gates: [{ seq: 1, code: 'G12', class: null, kind: 'D', scheduledStart: at('1000'), scheduledEnd: at('1025'), actualStart: at('1001'), actualEnd: at('1026') }],
        counters: [{ seq: 1, code: 'A01', class: 'F', kind: 'D', scheduledStart: at('0840'), scheduledEnd: at('1000'), actualStart: at('0841'), actualEnd: at('1001') }],
        belts: [{ seq: 1, code: 'B05', class: 'X', kind: 'D', scheduledStart: at('0940'), scheduledEnd: at('1010'), actualStart: at('0944'), actualEnd: at('1002') }],
        chutes: [{ seq: 1, code: 'M07', class: 'X', kind: 'D', scheduledStart: at('0840'), scheduledEnd: at('1010'), actualStart: at('0845'), actualEnd: at('1011') }],
        bridges: [{ seq: 1, bridge: '212A', operation: 'A', time: at('0927') }],
        chocks: [{ seq: 1, stand: '212', onOff: 'ON', time: at('0926') }],
        delays: [{ code: '93', start: at('1040'), durationMinutes: 85 }],
        services: [{ code: 'CAT', quantity: 2, start: at('0950'), end: at('1020'), provider: 'SKYCHEF', abnormalReason: 'LATE', abnormalRemark: 'truck 晚到' }],
        route: [{ seq: 1, airport: 'TAO', scheduledArrival: null, scheduledDeparture: at('1040') }],
      },
    }]);
  });

  it('leave absent elements out (unchanged) and read empty ones as null / empty list', () => {
    const m = decodeSchd(schdXml('ADFT', [fltr('1', '14MAR250930', '<ACFT/><ESTT></ESTT><PSDT/>')]));
    const rec = m.records[0]!;
    expect(rec.fields).toEqual({ scheduledTime: at('0930'), aircraftType: null, estimatedTime: null });
    expect(rec.lists).toEqual({ stands: [] });
    expect('registration' in rec.fields).toBe(false);
  });

  it('take the operation day from the local date of SODT', () => {
    const m = decodeSchd(schdXml('DNLD', [fltr('1', '14MAR250030')]));
    expect(m.records[0]).toMatchObject({ scheduledTime: '2025-03-13T16:30:00.000Z', operationDay: '2025-03-14' });
  });

  it('canonicalize FLIDs (leading zeros) and keep int64 FLIDs exact, also in TAID/MAID', () => {
    const m = decodeSchd(schdXml('ADFT', [
      fltr('000880001', '14MAR250930', '<TAID>0042</TAID><MAID>007</MAID>'), fltr('9223372036854775807', '14MAR250930'),
    ]));
    expect(m.records.map((r) => r.flid)).toEqual(['880001', '9223372036854775807']);
    expect(m.records[0]!.fields).toMatchObject({ linkFlid: '42', masterFlid: '7' });
  });

  it('allow an empty plan (no FLTR) and a missing RECS', () => {
    expect(decodeSchd(schdXml('DNLD', [])).records).toEqual([]);
    const m = decodeSchd(msgXml({ type: 'SCHD', styp: 'ADFT' }, `<SCHD>${fltr('1', '14MAR250930')}</SCHD>`));
    expect(m).toMatchObject({ declaredRecords: null, records: [{ flid: '1' }] });
  });
});

describe('FLOP blocks', () => {
  it('repeat: one op per block, in message order', () => {
    const m = decodeFlop(flopXml('ESTT', [['2', '<ESTT>14MAR250918</ESTT>'], ['1', '<ESTT>14MAR251105</ESTT>']]));
    expect(m.ops).toEqual([
      { flid: '2', ffid: 'X-2', action: { kind: 'set-fields', fields: { estimatedTime: at('0918') } } },
      { flid: '1', ffid: 'X-1', action: { kind: 'set-fields', fields: { estimatedTime: at('1105') } } },
    ]);
  });

  it('read only the subtype’s elements (others are ignored)', () => {
    const m = decodeFlop(flopXml('ACFT', [['1', '<ACFT>738</ACFT><RENO>B1</RENO><ESTT>garbage</ESTT><ZZZZ/>']]));
    expect(m.ops[0]?.action).toEqual({ kind: 'set-fields', fields: { aircraftType: '738' } });
  });

  it('empty element clears; an absent element of a unit (TAOP/TAFL/TAID) clears too, of HNAG/VIPP it is unchanged', () => {
    expect(decodeFlop(flopXml('CNCL', [['1', '<CNCL/>']])).ops[0]?.action).toEqual({ kind: 'set-fields', fields: { cancelTime: null } });
    expect(decodeFlop(flopXml('TAOP', [['1', '<TAFL>MU5122</TAFL><TAID/>']])).ops[0]?.action)
      .toEqual({ kind: 'set-fields', fields: { linkAirline: null, linkFlightNo: 'MU5122', linkFlid: null } });
    expect(decodeFlop(flopXml('HNAG', [['1', '<FHAG>7</FHAG>']])).ops[0]?.action).toEqual({ kind: 'set-fields', fields: { agentField: '7' } });
    expect(decodeFlop(flopXml('VIPP', [['1', '<VIPR>1</VIPR>']])).ops[0]?.action).toEqual({ kind: 'set-fields', fields: { vipReserved: 1 } });
  });

  it('new subtypes: integers, PORT children, repeated VIPF/TIPT numbered by order, PSHT by PSHN', () => {
    const action = (styp: string, inner: string) => decodeFlop(flopXml(styp, [['1', inner]])).ops[0]?.action;
    expect(() => action('MAXP', '<MAXP>many</MAXP>')).toThrow(/FLOP\[1\]\/MAXP: invalid integer 'many'/);
    expect(action('PORT', '<PORT><POID>I</POID></PORT>')).toEqual({ kind: 'set-fields', fields: { portTime: null, portCode: 'I' } });
    expect(action('PORT', '<PORT/>')).toEqual({ kind: 'set-fields', fields: { portTime: null, portCode: null } });
    expect(action('TIPT', '<TIPT/>')).toEqual({ kind: 'replace-list', list: 'tows', items: [] });
    expect(() => action('PSHT', '<PSHT><PSID>OUT</PSID></PSHT>')).toThrow(/PSHT@PSHN: missing/);
    expect(() => action('VIPF', '<VIPF><VFES>1</VFES></VIPF>')).toThrow(/VIPF\[1\]\/VPCD: missing/);
  });

  it('FDIV: DDES/DDIR together, empty = undone; FRET: REID, empty = undone', () => {
    const action = (styp: string, inner: string) => decodeFlop(flopXml(styp, [['1', inner]])).ops[0]?.action;
    expect(action('FDIV', '<FDIV DDES="PVG" DDIR="TO"/>')).toEqual({ kind: 'set-fields', fields: { diversionAirport: 'PVG', diversionDirection: 'TO' } });
    expect(action('FDIV', '<FDIV DDES="PVG"/>')).toEqual({ kind: 'set-fields', fields: { diversionAirport: 'PVG', diversionDirection: null } });
    expect(action('FDIV', '<FDIV/>')).toEqual({ kind: 'set-fields', fields: { diversionAirport: null, diversionDirection: null } });
    expect(action('FRET', '<FRET REID="a"/>')).toEqual({ kind: 'set-fields', fields: { returnType: 'A' } });
    expect(action('FRET', '<FRET></FRET>')).toEqual({ kind: 'set-fields', fields: { returnType: null } });
  });

  it('lists: ordered by seq; delays and services by (start, code); <X/> alone clears', () => {
    const psdt = decodeFlop(flopXml('PSDT', [['1',
      '<PSDT PSNO="3"><PSST>C</PSST></PSDT><PSDT PSNO="1"><PSST>A</PSST></PSDT><PSDT PSNO="2"><PSST>B</PSST></PSDT>']]));
    expect(psdt.ops[0]?.action).toMatchObject({ kind: 'replace-list', list: 'stands', items: [{ code: 'A' }, { code: 'B' }, { code: 'C' }] });

    const dely = decodeFlop(flopXml('DELY', [['1',
      '<DELY CODE="93" STRT="14MAR251040" DURA="0025"/><DELY CODE="81" STRT="14MAR251040" DURA="0010"/><DELY CODE="11" STRT="14MAR250900" DURA="0100"/><DELY CODE="05"/>']]));
    expect(dely.ops[0]?.action).toEqual({
      kind: 'replace-list', list: 'delays', items: [
        { code: '11', start: at('0900'), durationMinutes: 60 },
        { code: '81', start: at('1040'), durationMinutes: 10 },
        { code: '93', start: at('1040'), durationMinutes: 25 },
        { code: '05', start: null, durationMinutes: null },
      ],
    });

    const srvt = decodeFlop(flopXml('SRVT', [['1',
      '<SRVT><SRTC>WAT</SRTC><SRST>14MAR250950</SRST></SRVT><SRVT><SRTC>CAT</SRTC><SRST>14MAR250950</SRST></SRVT><SRVT><SRTC>AAA</SRTC><SRST>14MAR251000</SRST></SRVT>']]));
    expect(srvt.ops[0]?.action).toMatchObject({ items: [{ code: 'CAT' }, { code: 'WAT' }, { code: 'AAA' }] });

    expect(decodeFlop(flopXml('GTDT', [['1', '<GTDT/>']])).ops[0]?.action).toEqual({ kind: 'replace-list', list: 'gates', items: [] });
  });
});

describe('CODEC_ERROR names the element', () => {
  it.each([
    ['a bad body time', flopXml('ESTT', [['1', '<ESTT>31FEB250930</ESTT>']]), "FLOP[1]/ESTT: invalid time '31FEB250930'"],
    ['a missing FLID', msgXml({ styp: 'ESTT' }, '<FLOP><ESTT>14MAR250930</ESTT></FLOP>'), 'FLOP[1]/FLID: missing'],
    ['an empty FLID', flopXml('ESTT', [['', '<ESTT>14MAR250930</ESTT>']]), 'FLOP[1]/FLID: missing'],
    ['a FLID that is not a number', flopXml('ESTT', [['88-1', '<ESTT>14MAR250930</ESTT>']]), "FLOP[1]/FLID: invalid flight id '88-1'"],
    ['no FLOP block', msgXml({ styp: 'ESTT' }, ''), 'FLOP: missing body'],
    ['the subtype element absent', flopXml('ESTT', [['1', '<ACTT>14MAR250930</ACTT>']]), 'FLOP[1]/ESTT: missing'],
    ['the list element absent', flopXml('PSDT', [['1', '']]), 'FLOP[1]/PSDT: missing'],
    ['a repeated value element', flopXml('ESTT', [['1', '<ESTT>14MAR250930</ESTT><ESTT>14MAR250931</ESTT>']]), 'FLOP[1]/ESTT: repeated element'],
    ['a value element with children', flopXml('ACFT', [['1', '<ACFT><X>1</X></ACFT>']]), 'FLOP[1]/ACFT: expected a value'],
    ['the second block bad', flopXml('ESTT', [['1', '<ESTT>14MAR250930</ESTT>'], ['2', '<ESTT>x</ESTT>']]), "FLOP[2]/ESTT: invalid time 'x'"],
    ['a bad TAID', flopXml('TAOP', [['1', '<TAID>abc</TAID>']]), "FLOP[1]/TAID: invalid flight id 'abc'"],
    ['FDIV with text and no DDES/DDIR', flopXml('FDIV', [['1', '<FDIV>ZBAA</FDIV>']]), 'FLOP[1]/FDIV: expected DDES/DDIR'],
    ['FRET with text and no REID', flopXml('FRET', [['1', '<FRET>G</FRET>']]), 'FLOP[1]/FRET: expected REID'],
    ['a list item without its number', flopXml('PSDT', [['1', '<PSDT><PSST>1</PSST></PSDT>']]), 'FLOP[1]/PSDT[1]/PSDT@PSNO: missing'],
    ['a list number that is not an integer', flopXml('PSDT', [['1', '<PSDT PSNO="x"><PSST>1</PSST></PSDT>']]), "PSDT@PSNO: invalid integer 'x'"],
    ['a duplicate list number', flopXml('GTDT', [['1', '<GTDT GTNO="1"><GATE>A</GATE></GTDT><GTDT GTNO="1"><GATE>B</GATE></GTDT>']]), 'FLOP[1]/GTDT: duplicate item GTNO=1'],
    ['a repeat in a long list', flopXml('GTDT', [['1', [...Array.from({ length: 30 }, (_, i) => String(30 - i)), '7', '3'].map((n) => `<GTDT GTNO="${n}"><GATE>A</GATE></GTDT>`).join('')]]), 'FLOP[1]/GTDT: duplicate item GTNO=7'],
    ['the first repeat in message order', flopXml('GTDT', [['1', ['2', '1', '2', '1'].map((n) => `<GTDT GTNO="${n}"><GATE>A</GATE></GTDT>`).join('')]]), 'FLOP[1]/GTDT: duplicate item GTNO=2'],
    ['a repeated delay with no start', flopXml('DELY', [['1', '<DELY CODE="93"/><DELY CODE="81"/><DELY CODE="93" DURA="0010"/>']]), 'FLOP[1]/DELY: duplicate item CODE=93 STRT='],
    ['a list item without its code', flopXml('CKDT', [['1', '<CKDT CKNO="1"><CCLS>F</CCLS></CKDT>']]), 'FLOP[1]/CKDT[1]/CHKC: missing'],
    ['a bad time inside a list item', flopXml('CLDT', [['1', '<CLDT CLNO="1"><BELT>B1</BELT><FBAG>99MAR250944</FBAG></CLDT>']]), "FLOP[1]/CLDT[1]/FBAG: invalid time '99MAR250944'"],
    ['a delay without CODE', flopXml('DELY', [['1', '<DELY STRT="14MAR251040"/>']]), 'DELY@CODE: missing'],
    ['a bad DELY duration', flopXml('DELY', [['1', '<DELY CODE="93" DURA="25"/>']]), "DELY@DURA: invalid duration '25'"],
    ['a bad DELY minutes', flopXml('DELY', [['1', '<DELY CODE="93" DURA="0160"/>']]), "DELY@DURA: invalid duration '0160'"],
    ['a bad DELY start', flopXml('DELY', [['1', '<DELY CODE="93" STRT="soon"/>']]), "DELY@STRT: invalid time 'soon'"],
    ['a duplicate delay', flopXml('DELY', [['1', '<DELY CODE="93" STRT="14MAR251040"/><DELY CODE="93" STRT="14MAR251040" DURA="0010"/>']]), 'duplicate item CODE=93'],
    ['a bad service quantity', flopXml('SRVT', [['1', '<SRVT><SRTC>CAT</SRTC><SRQT>one</SRQT></SRVT>']]), "SRQT: invalid integer 'one'"],
    ['a route point without airport', flopXml('ERUT', [['1', '<ERUT RTNO="1"><SCAT>14MAR250930</SCAT></ERUT>']]), 'FLOP[1]/ERUT[1]/APCD: missing'],
    ['no SCHD body', msgXml({ type: 'SCHD', styp: 'DNLD' }, ''), 'SCHD: missing body'],
    ['RECS not matching the records', msgXml({ type: 'SCHD', styp: 'DNLD' }, `<SCHD><RECS>2</RECS>${fltr('1', '14MAR250930')}</SCHD>`), 'SCHD/RECS: declares 2 records, found 1'],
    ['a record without SODT', msgXml({ type: 'SCHD', styp: 'DNLD' }, '<SCHD><FLTR><FLID>1</FLID></FLTR></SCHD>'), 'SCHD/FLTR[1]/SODT: missing'],
    ['a record with an empty SODT', schdXml('DNLD', [fltr('1', '')]), 'SCHD/FLTR[1]/SODT: missing'],
    ['a record without FLID', msgXml({ type: 'SCHD', styp: 'DNLD' }, '<SCHD><FLTR><SODT>14MAR250930</SODT></FLTR></SCHD>'), 'SCHD/FLTR[1]/FLID: missing'],
    ['a bad MAID', schdXml('DNLD', [fltr('1', '14MAR250930', '<MAID>M-1</MAID>')]), "SCHD/FLTR[1]/MAID: invalid flight id 'M-1'"],
    ['a bad MVIN', schdXml('DNLD', [fltr('1', '14MAR250930', '<MVIN>X</MVIN>')]), "SCHD/FLTR[1]/MVIN: invalid direction 'X'"],
    ['a bad list time in the second record', schdXml('DNLD', [fltr('1', '14MAR250930'), fltr('2', '14MAR250930', '<ROUT RTNO="1"><APCD>PEK</APCD><SCAT>x</SCAT></ROUT>')]), "SCHD/FLTR[2]/ROUT[1]/SCAT: invalid time 'x'"],
  ])('%s', (_what, xml, error) => {
    const r = decode(xml, { tz: TZ });
    expect(r).toMatchObject({ ok: false, errorClass: 'CODEC_ERROR' });
    expect(!r.ok && r.error).toContain(error);
    expect(!r.ok && r.meta?.sndr).toBe('AODB');
  });
});

describe('integer range', () => {
  it('refuses numbering and quantities beyond 32 bits as CODEC_ERROR naming the element', () => {
    const big = decode(flopXml('PSDT', [['1', '<PSDT PSNO="2147483648"><PSST>1</PSST></PSDT>']]), { tz: 'Asia/Shanghai' });
    expect(big.ok ? 'ok' : big.errorClass).toBe('CODEC_ERROR');
    expect(big.ok ? '' : big.error).toMatch(/PSNO.*out of range|out of range.*PSNO|PSDT/);
    const fits = decode(flopXml('PSDT', [['1', '<PSDT PSNO="2147483647"><PSST>1</PSST></PSDT>']]), { tz: 'Asia/Shanghai' });
    expect(fits.ok).toBe(true);
  });
});
