/**
 * Reference data in the domain: decode (records under MSG, every element kept, lists, attributes)
 * and decide (DNLD/RESP replace the kind, ADD, UPD merge, DEL by key, keyless records, empty
 * snapshots) — for every one of the 23 kinds — and seasonal schedules (SCHS).
 */
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { decide, type Decision } from '../../src/domain/decide.ts';
import type { ReferenceMessage, SeasonalMessage } from '../../src/domain/message.ts';
import type { Change } from '../../src/domain/changes.ts';
import { REFERENCE_KIND_LIST, REFERENCE_KINDS, type ReferenceKindInfo } from '../../src/domain/reference/kinds.ts';
import { EMPTY_REFERENCE, foldReference, type ReferenceState } from '../../src/domain/reference/state.ts';
import { nameOf, publicFields } from '../../src/domain/reference/record.ts';

const TZ = 'Asia/Shanghai';
let seqn = 1;

function xmlOf(type: string, styp: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<MSG xmlns:xsi = "http://www.w3.org/2001/XMLSchema-instance">\n\t<META>\n\t\t<SNDR>AODB</SNDR>\n\t\t<SEQN>${seqn++}</SEQN>` +
    `<DTTM>20250321050000</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP>\n\t</META>\n\t${body}\n</MSG>`;
}

function decodeOk<T>(xml: string): T {
  const r = decode(xml, { tz: TZ });
  if (!r.ok) throw new Error(`${r.errorClass}: ${r.error}`);
  return r.message as T;
}

function run(store: ReferenceState, type: string, styp: string, body: string): { d: Decision; store: ReferenceState } {
  const d = decide(new Map(), decodeOk<ReferenceMessage>(xmlOf(type, styp, body)), store);
  return { d, store: foldReference(store, d.changes) };
}

/** A record of `kind`: key, name, local name, one more element (a list element when the kind has one). */
function recordXml(k: ReferenceKindInfo, code: string, name: string, extra = 'X1'): string {
  const other = k.lists[0] ?? 'ZZZZ';
  return `<${k.kind}><${k.key}>${code}</${k.key}>` +
    (k.name ? `<${k.name}>${name}</${k.name}>` : '') +
    (k.nameLocal ? `<${k.nameLocal}>本地${name}</${k.nameLocal}>` : '') +
    `<${other}>${extra}</${other}></${k.kind}>`;
}

const types = (changes: readonly Change[]) => changes.map((c) => (c.type === 'ReferenceUpserted' || c.type === 'ReferenceDeleted' ? `${c.type}:${c.code}` : c.type));

describe.each(REFERENCE_KIND_LIST.map((k) => [k.kind, k] as const))('reference kind %s', (_kind, k) => {
  const other = k.lists[0] ?? 'ZZZZ';
  const asList = k.lists.length > 0;

  it('DNLD replaces the kind: upserts every record, deletes the ones it lacks, summarises', () => {
    let { d, store } = run(EMPTY_REFERENCE, k.kind, 'DNLD', `<RECS>2</RECS>${recordXml(k, 'A1', 'Alpha')}${recordXml(k, 'B2', 'Beta')}`);
    expect(d.handler).toBe(`reference.${k.kind}.DNLD`);
    expect(types(d.changes)).toEqual(['ReferenceUpserted:A1', 'ReferenceUpserted:B2', 'ReferenceSnapshotApplied']);
    const a1 = store.get(k.kind)!.get('A1')!;
    expect(a1[k.key]).toBe('A1');
    expect(a1[other]).toEqual(asList ? ['X1'] : 'X1');
    const names = nameOf(a1, k);
    expect(names).toEqual({ name: k.name ? 'Alpha' : null, nameLocal: k.nameLocal ? '本地Alpha' : null });

    ({ d, store } = run(store, k.kind, 'RESP', `<RECS>1</RECS>${recordXml(k, 'B2', 'Beta')}`));
    expect(types(d.changes)).toEqual(['ReferenceDeleted:A1', 'ReferenceSnapshotApplied']);
    expect(d.changes.at(-1)).toMatchObject({ kind: k.kind, stype: 'RESP', records: 1, upserted: 0, unchanged: 1, deleted: 1, skipped: 0, empty: false });
    expect([...store.get(k.kind)!.keys()]).toEqual(['B2']);
  });

  it('ADD upserts the whole record (replacing one with the same key)', () => {
    let { store } = run(EMPTY_REFERENCE, k.kind, 'ADD', recordXml(k, 'C3', 'Gamma'));
    const { d, store: after } = run(store, k.kind, 'ADD', `<${k.kind}><${k.key}>C3</${k.key}><QQQQ>only</QQQQ></${k.kind}>`);
    expect(types(d.changes)).toEqual(['ReferenceUpserted:C3']);
    expect(after.get(k.kind)!.get('C3')).toEqual({ [k.key]: 'C3', QQQQ: 'only' });
    store = after;
    // the same ADD again changes nothing
    expect(run(store, k.kind, 'ADD', `<${k.kind}><${k.key}>C3</${k.key}><QQQQ>only</QQQQ></${k.kind}>`).d.changes).toEqual([]);
  });

  it('UPD replaces the elements it carries, keeps the absent ones and clears the empty ones', () => {
    const { store } = run(EMPTY_REFERENCE, k.kind, 'ADD', recordXml(k, 'D4', 'Delta'));
    const body = `<${k.kind}><${k.key}>D4</${k.key}><${other}>X2</${other}>${k.nameLocal ? `<${k.nameLocal}/>` : ''}<NEWE>n</NEWE></${k.kind}>`;
    const { d, store: after } = run(store, k.kind, 'UPD', body);
    expect(types(d.changes)).toEqual(['ReferenceUpserted:D4']);
    const rec = after.get(k.kind)!.get('D4')!;
    expect(rec[other]).toEqual(asList ? ['X2'] : 'X2');
    expect(rec.NEWE).toBe('n');
    if (k.name) expect(rec[k.name]).toBe('Delta');
    if (k.nameLocal) expect(Object.hasOwn(rec, k.nameLocal)).toBe(false);
  });

  it('DEL removes by key (other elements ignored); an unknown key is skipped unknown-record', () => {
    const { store } = run(EMPTY_REFERENCE, k.kind, 'ADD', recordXml(k, 'E5', 'Epsilon'));
    const { d, store: after } = run(store, k.kind, 'DEL', `<${k.kind}><${k.key}>E5</${k.key}><${other}>ignored</${other}></${k.kind}>`);
    expect(d.changes).toEqual([{ type: 'ReferenceDeleted', kind: k.kind, code: 'E5', reason: 'del' }]);
    expect(after.get(k.kind)!.has('E5')).toBe(false);
    const again = run(after, k.kind, 'DEL', `<${k.kind}><${k.key}>E5</${k.key}></${k.kind}>`).d;
    expect(again).toMatchObject({ skipped: 'unknown-record', unknownRecords: ['E5'], changes: [] });
  });
});

describe('reference decisions: edge cases', () => {
  const AIRL = REFERENCE_KINDS.AIRL!;

  it('keeps every element: repeated children as lists, attributes with their element, nested records', () => {
    const m = decodeOk<ReferenceMessage>(xmlOf('AIRL', 'ADD', `<AIRL><ITOP>UA</ITOP><ONAM>UNITED</ONAM><TRML MVIN = "A" FLIN="I">T2</TRML><TRML MVIN="D"/>
      <OGRP>STAR</OGRP><SUBC><CODE>001</CODE><NAME>First</NAME><NAMC>第一</NAMC></SUBC><SUBC><CODE>002</CODE></SUBC>
      <DORI>I</DORI><XTRA>a</XTRA><XTRA>b</XTRA><EMPT/></AIRL>`));
    expect(m.records[0]!.fields).toEqual({
      ITOP: 'UA', ONAM: 'UNITED',
      TRML: [{ '@MVIN': 'A', '@FLIN': 'I', '#text': 'T2' }, { '@MVIN': 'D' }],
      OGRP: ['STAR'],
      SUBC: [{ CODE: '001', NAME: 'First', NAMC: '第一' }, { CODE: '002' }],
      DORI: 'I', XTRA: ['a', 'b'],
    });
  });

  it('a keyless record is listed and skipped; the rest applies (also in a snapshot, which keeps the kind otherwise whole)', () => {
    let { store } = run(EMPTY_REFERENCE, 'AIRL', 'DNLD', '<AIRL><ITOP>CA</ITOP></AIRL><AIRL><ITOP>MU</ITOP></AIRL>');
    const { d, store: after } = run(store, 'AIRL', 'DNLD', '<RECS>5</RECS><AIRL><ONAM>NO KEY</ONAM></AIRL><AIRL><ITOP>CA</ITOP><ONAM>AIR CHINA</ONAM></AIRL><AIRL><ITOP/></AIRL>');
    expect(d.skippedRecords).toEqual([
      { index: 1, reason: 'missing-key', detail: 'record without its key element' },
      { index: 3, reason: 'missing-key', detail: 'record without its key element' },
    ]);
    expect(d.notes).toEqual(['RECS says 5, the message holds 3 record(s)', '2 record(s) without their key element skipped']);
    expect(types(d.changes)).toEqual(['ReferenceUpserted:CA', 'ReferenceDeleted:MU', 'ReferenceSnapshotApplied']);
    expect(d.changes.at(-1)).toMatchObject({ records: 1, declaredRecords: 5, skipped: 2, upserted: 1, deleted: 1 });
    expect(after.get('AIRL')!.get('CA')).toEqual({ ITOP: 'CA', ONAM: 'AIR CHINA' });
    store = after;
    // keyless records never make DEL/UPD fail
    expect(run(store, 'AIRL', 'UPD', '<AIRL><ONAM>X</ONAM></AIRL>').d).toMatchObject({ changes: [], skippedRecords: [{ index: 1 }] });
  });

  it('a snapshot without records changes nothing and warns', () => {
    const { store } = run(EMPTY_REFERENCE, 'AIRL', 'DNLD', '<AIRL><ITOP>CA</ITOP></AIRL>');
    for (const body of ['<RECS>0</RECS>', '<RECS>3</RECS>', '<AIRL><ONAM>keyless only</ONAM></AIRL>']) {
      const { d, store: after } = run(store, 'AIRL', 'RESP', body);
      expect(types(d.changes)).toEqual(['ReferenceSnapshotApplied']);
      expect(d.changes[0]).toMatchObject({ empty: true, deleted: 0, upserted: 0 });
      expect(d.warnings).toEqual(['AIRL/RESP holds no record: the AIRL records are left as they are']);
      expect(after).toBe(store);
    }
  });

  it('a record named twice in one message: the later one wins (UPD on top of the earlier one)', () => {
    const { d, store } = run(EMPTY_REFERENCE, 'AIRL', 'UPD', '<AIRL><ITOP>CA</ITOP><ONAM>A</ONAM><CTRY>PRC</CTRY></AIRL><AIRL><ITOP>CA</ITOP><ONAM>B</ONAM></AIRL>');
    expect(types(d.changes)).toEqual(['ReferenceUpserted:CA', 'ReferenceUpserted:CA']);
    expect(store.get('AIRL')!.get('CA')).toEqual({ ITOP: 'CA', ONAM: 'B', CTRY: 'PRC' });
    const snap = run(EMPTY_REFERENCE, 'AIRL', 'DNLD', '<AIRL><ITOP>CA</ITOP><ONAM>A</ONAM></AIRL><AIRL><ITOP>CA</ITOP><ONAM>B</ONAM></AIRL>');
    expect(snap.store.get('AIRL')!.get('CA')).toEqual({ ITOP: 'CA', ONAM: 'B' });
    expect(snap.d.changes.at(-1)).toMatchObject({ records: 2, upserted: 1, unchanged: 0 });
  });

  it('DEL of known and unknown keys applies the known ones and lists the unknown', () => {
    const { store } = run(EMPTY_REFERENCE, 'ARPT', 'DNLD', '<ARPT><ITCD>PEK</ITCD></ARPT><ARPT><ITCD>TAO</ITCD></ARPT>');
    const { d } = run(store, 'ARPT', 'DEL', '<ARPT><ITCD>XXX</ITCD></ARPT><ARPT><ITCD>TAO</ITCD></ARPT>');
    expect(d.skipped).toBeUndefined();
    expect(d.unknownRecords).toEqual(['XXX']);
    expect(types(d.changes)).toEqual(['ReferenceDeleted:TAO']);
  });

  it('decisions are deterministic and survive a JSON round trip of the log', () => {
    const body = '<AIRL><ITOP>CA</ITOP><TRML MVIN="D">T3</TRML></AIRL>';
    const a = run(EMPTY_REFERENCE, 'AIRL', 'DNLD', body);
    const replayed = foldReference(EMPTY_REFERENCE, JSON.parse(JSON.stringify(a.d.changes)) as Change[]);
    expect(replayed.get('AIRL')).toEqual(a.store.get('AIRL'));
    expect(AIRL.lists).toContain('TRML');
  });

  it('VIPL: only VPCD and VRNK are public', () => {
    const m = decodeOk<ReferenceMessage>(xmlOf('VIPL', 'ADD', '<VIPL><VPCD>V1</VPCD><VFNM>Wei</VFNM><VRNK>1</VRNK><VCMN>139</VCMN></VIPL>'));
    expect(publicFields(m.records[0]!.fields, REFERENCE_KINDS.VIPL!)).toEqual({ VPCD: 'V1', VRNK: '1' });
  });

  it('3-letter STYPs decode; an unknown reference subtype is UNSUPPORTED', () => {
    expect(decode(xmlOf('AIRL', 'ADD', '<AIRL><ITOP>CA</ITOP></AIRL>'), { tz: TZ }).ok).toBe(true);
    const r = decode(xmlOf('AIRL', 'NONE', ''), { tz: TZ });
    expect(r).toMatchObject({ ok: false, errorClass: 'UNSUPPORTED' });
  });
});

describe('seasonal schedules (SCHS)', () => {
  const schs = (records: string, season = 'S25') =>
    `<SCHS><SNAM>${season}</SNAM><SDAT>30MAR25</SDAT><EDAT>25oct25</EDAT><RECS>9</RECS>${records}</SCHS>`;
  const fltr = (no: string, stdt: string, eddt: string, dyop: string, extra = '') =>
    `<FLTR><ALCD>CA</ALCD><FLNO>${no}</FLNO><MVIN>D</MVIN><FLTY>J</FLTY><FLIN>D</FLIN><ACFT>321</ACFT><TRML>T2</TRML><MAXP>180</MAXP>` +
    `<STDT>${stdt}</STDT><EDDT>${eddt}</EDDT><DYOP>${dyop}</DYOP><SCHT>0930</SCHT>${extra}</FLTR>`;

  it('decodes the season and its records; invalid period or DYOP is skipped and listed', () => {
    const m = decodeOk<SeasonalMessage>(xmlOf('SCHS', 'DNLD', schs(
      fltr('CA1501', '30MAR25', '25OCT25', '1030507',
        '<ROUT RTNO="1"><APCD>PEK</APCD><SCDT>0710</SCDT><SDDC>0</SDDC></ROUT><ERUT RTNO = "2"><APCD>TAO</APCD><SCAT>0930</SCAT><SADC>+1</SADC></ERUT>' +
        '<ERUT RTNO="1"><APCD>PEK</APCD><SCDT>0710</SCDT></ERUT><TAOP>CA</TAOP><TAFL>CA1502</TAFL>') +
      fltr('CA1503', '25OCT25', '30MAR25', '1234567') +
      fltr('CA1505', '30MAR25', '25OCT25', '123456') +
      fltr('CA1507', '31FEB25', '25OCT25', '1234567') +
      fltr('CA1509', '30MAR25', '25OCT25', '12345a7'),
    )));
    expect(m).toMatchObject({ season: 'S25', startDate: '2025-03-30', endDate: '2025-10-25', declaredRecords: 9 });
    expect(m.flights).toHaveLength(1);
    expect(m.flights[0]).toMatchObject({
      seq: 1, airline: 'CA', flightNo: 'CA1501', direction: 'D', serviceType: 'J', flightNature: 'D', aircraftType: '321', terminal: 'T2',
      maxPassengers: 180, validFrom: '2025-03-30', validTo: '2025-10-25', daysOfOperation: '1030507', scheduledTime: '0930',
      route: [
        { seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: '0710', dayOffset: null },
        { seq: 2, airport: 'TAO', scheduledArrival: '0930', scheduledDeparture: null, dayOffset: '+1' },
      ],
      linkedAirline: 'CA', linkedFlightNo: 'CA1502',
    });
    expect(m.skippedRecords.map((r) => [r.index, r.reason])).toEqual([[2, 'invalid-period'], [3, 'invalid-dyop'], [4, 'invalid-period'], [5, 'invalid-dyop']]);
    const d = decide(new Map(), m);
    expect(d.handler).toBe('reference.SCHS.DNLD');
    expect(d.changes).toEqual([{ type: 'SeasonalScheduleReplaced', stype: 'DNLD', season: 'S25', startDate: '2025-03-30', endDate: '2025-10-25', flights: m.flights, skipped: 4 }]);
    expect(d.skippedRecords).toHaveLength(4);
    expect(d.notes).toContain('RECS says 9, the season holds 5 record(s)');
  });

  it('a season without SNAM is a CODEC_ERROR', () => {
    const r = decode(xmlOf('SCHS', 'RESP', '<SCHS><SDAT>30MAR25</SDAT></SCHS>'), { tz: TZ });
    expect(r).toMatchObject({ ok: false, errorClass: 'CODEC_ERROR' });
  });
});
