/** SCHD handlers: DNLD/RESP plan snapshots and ADFT upserts. */
import { describe, expect, it } from 'vitest';
import type { PlanSnapshotApplied } from '../../src/domain/changes.ts';
import { decide } from '../../src/domain/decide.ts';
import { foldPlanRequests, NO_PLAN_REQUESTS } from '../../src/domain/planRequests.ts';
import { emptyFields } from '../../src/domain/fields.ts';
import { emptyLists } from '../../src/domain/lists.ts';
import { flopXml, fltr, schdXml } from './support/buildXml.ts';
import { decodeOk } from './support/decodeOk.ts';
import { flightChanges, fold, step } from './support/seedFlights.ts';

const at = (day: string, hhmm: string): string =>
  new Date(`2025-03-${day}T${hhmm.slice(0, 2)}:${hhmm.slice(2)}:00+08:00`).toISOString();
const TODAY = { dttm: '20250314020000' };
const summaryOf = (changes: readonly { type: string }[]): PlanSnapshotApplied | undefined =>
  changes.find((c): c is PlanSnapshotApplied => c.type === 'PlanSnapshotApplied');

const A = fltr('11', '14MAR250700', '<ALCD>ZH</ALCD><FLNO>ZH1</FLNO><MVIN>D</MVIN>');
const B = fltr('12', '14MAR251100', '<ALCD>ZH</ALCD><FLNO>ZH2</FLNO><MVIN>A</MVIN>');
const C = fltr('13', '14MAR252100', '<ALCD>ZH</ALCD><FLNO>ZH3</FLNO><MVIN>D</MVIN>');

describe('DNLD / RESP', () => {
  it('creates every record with all fields and lists (absent → null / empty)', () => {
    const d = decide(new Map(), decodeOk(schdXml('DNLD', [fltr('11', '14MAR250700', '<ALCD>ZH</ALCD><GTDT GTNO="1"><GATE>G1</GATE></GTDT>')], TODAY)));
    expect(d.handler).toBe('schdSnapshot.DNLD');
    expect(d.changes[0]).toEqual({
      type: 'FlightCreated', flid: '11', operationDay: '2025-03-14',
      fields: { ...emptyFields(), airline: 'ZH', scheduledTime: at('14', '0700') },
      lists: { ...emptyLists(), gates: [{ seq: 1, code: 'G1', class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }] },
    });
    expect(summaryOf(d.changes)).toEqual({
      type: 'PlanSnapshotApplied', stype: 'DNLD', day: '2025-03-14', windowStart: at('14', '0700'), windowEnd: at('14', '0700'),
      created: 1, updated: 0, deleted: 0, ignored: 0,
    });
  });

  it('gives a new flight the local date of SODT as operation day', () => {
    const flights = fold([schdXml('DNLD', [fltr('11', '15MAR250030')], TODAY)]);
    expect(flights.get('11')).toMatchObject({ operationDay: '2025-03-15', scheduledTime: '2025-03-14T16:30:00.000Z' });
  });

  it('repeating identical data changes no flight (only the summary)', () => {
    const xml = schdXml('DNLD', [A, B, C], TODAY);
    const flights = fold([xml]);
    const d = decide(flights, decodeOk(xml));
    expect(d.changes).toEqual([expect.objectContaining({ type: 'PlanSnapshotApplied', created: 0, updated: 0, deleted: 0, ignored: 0 })]);
  });

  it('updates only what a record changes; absent elements and lists stay as they are', () => {
    const flights = fold([
      schdXml('DNLD', [fltr('11', '14MAR250700', '<ACFT>320</ACFT><PSDT PSNO="1"><PSST>101</PSST></PSDT>')], TODAY),
      flopXml('ESTT', [['11', '<ESTT>14MAR250710</ESTT>']], { seqn: '2' }),
      flopXml('CHOT', [['11', '<CHOT CSNO="1"><CHST>ON</CHST></CHOT>']], { seqn: '3' }),
    ]);
    const d = step(flights, schdXml('DNLD', [fltr('11', '14MAR250700', '<ACFT>321</ACFT><STND>5</STND>')], { ...TODAY, seqn: '4' }));
    expect(flightChanges(d.changes)).toEqual([{ type: 'FlightUpdated', flid: '11', fields: { aircraftType: '321', currentStand: '5' } }]);
    expect(summaryOf(d.changes)).toMatchObject({ created: 0, updated: 1 });
    expect(flights.get('11')).toMatchObject({
      estimatedTime: at('14', '0710'), chocks: [{ seq: 1, onOff: 'ON' }], stands: [{ seq: 1, code: '101' }],
    });
  });

  it('replaces a list the record carries, and clears it with an empty element', () => {
    const flights = fold([schdXml('DNLD', [fltr('11', '14MAR250700', '<PSDT PSNO="1"><PSST>101</PSST></PSDT>')], TODAY)]);
    const d = step(flights, schdXml('DNLD', [fltr('11', '14MAR250700', '<PSDT PSNO="1"><PSST>102</PSST></PSDT>')], { ...TODAY, seqn: '2' }));
    expect(flightChanges(d.changes)).toMatchObject([{ type: 'StandsReplaced', flid: '11', items: [{ code: '102' }] }]);
    const e = step(flights, schdXml('DNLD', [fltr('11', '14MAR250700', '<PSDT/>')], { ...TODAY, seqn: '3' }));
    expect(flightChanges(e.changes)).toEqual([{ type: 'StandsReplaced', flid: '11', items: [] }]);
  });

  it('deletes flights of the window that the plan lacks — and only those', () => {
    const flights = fold([
      schdXml('DNLD', [A, B, C], TODAY),
      schdXml('ADFT', [fltr('14', '14MAR252300')], { seqn: '2' }), // after the next window
      schdXml('ADFT', [fltr('15', '14MAR250900')], { seqn: '3' }), // inside it, not in the next plan
    ]);
    const d = step(flights, schdXml('DNLD', [A, C], { dttm: '20250314040000', seqn: '4' }));
    expect(flightChanges(d.changes)).toEqual([
      { type: 'FlightDeleted', flid: '12', reason: 'plan-snapshot' },
      { type: 'FlightDeleted', flid: '15', reason: 'plan-snapshot' },
    ]);
    expect(summaryOf(d.changes)).toMatchObject({ windowStart: at('14', '0700'), windowEnd: at('14', '2100'), deleted: 2 });
    expect(flights.get('14')!.deleted).toBe(false);
    // A flight deleted already is not deleted again.
    const again = decide(flights, decodeOk(schdXml('DNLD', [A, C], { dttm: '20250314050000', seqn: '5' })));
    expect(flightChanges(again.changes)).toEqual([]);
  });

  it('emits the deletions in numeric flid order, whatever order the flights were added in', () => {
    const flights = fold([
      schdXml('ADFT', [fltr('100', '14MAR250900')], { seqn: '1' }),
      schdXml('ADFT', [fltr('9', '14MAR250900')], { seqn: '2' }),
      schdXml('ADFT', [fltr('10', '14MAR250900')], { seqn: '3' }),
    ]);
    const d = step(flights, schdXml('DNLD', [A, C], { ...TODAY, seqn: '4' }));
    expect(flightChanges(d.changes).map((c) => 'flid' in c && c.flid)).toEqual(['11', '13', '9', '10', '100']);
  });

  it('never creates, updates or deletes flights of a day before the message date', () => {
    const flights = fold([schdXml('DNLD', [fltr('10', '13MAR252200', '<ACFT>320</ACFT>')], { dttm: '20250313020000' })]);
    const d = step(flights, schdXml('DNLD', [
      fltr('9', '13MAR252100'), // new, yesterday: ignored
      fltr('10', '13MAR252200', '<ACFT>999</ACFT>'), // existing, yesterday: ignored
      fltr('11', '14MAR250700'),
    ], { dttm: '20250314060000', seqn: '2' }));
    expect(flightChanges(d.changes)).toEqual([expect.objectContaining({ type: 'FlightCreated', flid: '11' })]);
    expect(summaryOf(d.changes)).toMatchObject({ created: 1, ignored: 2, deleted: 0, windowStart: at('13', '2100') });
    expect(flights.has('9')).toBe(false);
    expect(flights.get('10')).toMatchObject({ aircraftType: '320', deleted: false });
  });

  it('keeps a yesterday flight inside the window that the plan lacks', () => {
    const flights = fold([schdXml('DNLD', [fltr('10', '13MAR252200')], { dttm: '20250313020000' })]);
    const d = step(flights, schdXml('DNLD', [fltr('9', '13MAR252100'), fltr('11', '14MAR250700')], { dttm: '20250314060000', seqn: '2' }));
    expect(summaryOf(d.changes)).toMatchObject({ deleted: 0 });
    expect(flights.get('10')!.deleted).toBe(false);
  });

  it('restores a deleted flight the plan contains', () => {
    const flights = fold([schdXml('DNLD', [A, B], TODAY), flopXml('FDEL', [['12', '<FDEL/>']], { seqn: '2' })]);
    const d = step(flights, schdXml('DNLD', [A, B], { dttm: '20250314040000', seqn: '3' }));
    expect(flightChanges(d.changes)).toEqual([{ type: 'FlightRestored', flid: '12' }]);
    expect(summaryOf(d.changes)).toMatchObject({ updated: 1 });
    expect(flights.get('12')).toMatchObject({ deleted: false, deletedReason: null });
  });

  it('never moves the operation day, even when SODT moves to another day', () => {
    const flights = fold([schdXml('DNLD', [fltr('11', '14MAR252330')], TODAY)]);
    step(flights, schdXml('DNLD', [fltr('11', '15MAR250030')], { dttm: '20250314050000', seqn: '2' }));
    expect(flights.get('11')).toMatchObject({ operationDay: '2025-03-14', scheduledTime: at('15', '0030') });
  });

  it('an empty plan has no window and deletes nothing', () => {
    const flights = fold([schdXml('DNLD', [A], TODAY)]);
    const d = decide(flights, decodeOk(schdXml('DNLD', [], { ...TODAY, seqn: '2' })));
    expect(d.changes).toEqual([{
      type: 'PlanSnapshotApplied', stype: 'DNLD', day: '2025-03-14', windowStart: null, windowEnd: null,
      created: 0, updated: 0, deleted: 0, ignored: 0,
    }]);
  });

  it('RESP decides exactly as DNLD, under its own name', () => {
    const flights = fold([schdXml('DNLD', [A, B, C], TODAY)]);
    const d = decide(flights, decodeOk(schdXml('RESP', [A, C], { dttm: '20250314040000', seqn: '2', extra: '<RMID>req-1</RMID>' })));
    expect(d.handler).toBe('schdSnapshot.RESP');
    expect(d.changes).toEqual([
      { type: 'FlightDeleted', flid: '12', reason: 'plan-snapshot' },
      expect.objectContaining({ type: 'PlanSnapshotApplied', stype: 'RESP', deleted: 1 }),
    ]);
  });

  it('a flight named twice in one plan: the second record applies on top of the first', () => {
    const d = decide(new Map(), decodeOk(schdXml('DNLD', [fltr('11', '14MAR250700', '<ACFT>320</ACFT>'), fltr('11', '14MAR250700', '<ACFT>321</ACFT>')], TODAY)));
    expect(flightChanges(d.changes).map((c) => c.type)).toEqual(['FlightCreated', 'FlightUpdated']);
  });
});

describe('RESP answering one of our plan requests (interface.md: the requested window)', () => {
  const D = fltr('14', '14MAR251500', '<ALCD>ZH</ALCD><FLNO>ZH4</FLNO><MVIN>A</MVIN>');
  const E = fltr('15', '15MAR250800', '<ALCD>ZH</ALCD><FLNO>ZH5</FLNO><MVIN>D</MVIN>');
  // A 07:00, B 11:00, D 15:00, C 21:00 on the 14th; E 08:00 on the 15th.
  const seed = () => fold([schdXml('DNLD', [A, B, D, C, E], TODAY)]);
  /** As the log holds it: the PlanRequested change of a registered request, folded (and through JSON). */
  const requests = (mgid: string, start: string, end: string) =>
    foldPlanRequests(NO_PLAN_REQUESTS, JSON.parse(JSON.stringify([{ type: 'PlanRequested', mgid, windowStart: start, windowEnd: end }])));
  const resp = (records: string[], rmid: string | null) =>
    decodeOk(schdXml('RESP', records, { dttm: '20250314040000', seqn: '2', extra: rmid === null ? '' : `<RMID>${rmid}</RMID>` }));
  const deleted = (changes: readonly { type: string; flid?: string }[]) => changes.filter((c) => c.type === 'FlightDeleted').map((c) => c.flid);

  it('records covering less than the window: the missing flights inside the requested window go, those outside stay', () => {
    // Asked for 06:00–12:00 on the 14th; the answer has A (07:00) and C (21:00) only.
    const planRequests = requests('MSGX-RQ7-ABCDEF', at('14', '0600'), at('14', '1200'));
    const d = decide(seed(), resp([A, C], 'MSGX-RQ7-ABCDEF'), undefined, { planRequests });
    // B (11:00) lies in the requested window; D (15:00) lies in the records' [07:00, 21:00] but not in the request.
    expect(deleted(d.changes)).toEqual(['12']);
    expect(summaryOf(d.changes)).toEqual({
      type: 'PlanSnapshotApplied', stype: 'RESP', day: '2025-03-14', windowStart: at('14', '0600'), windowEnd: at('14', '1200'),
      request: 'MSGX-RQ7-ABCDEF', created: 0, updated: 0, deleted: 1, ignored: 0,
    });
    // The same RESP without the request (another RMID): decided as a DNLD, per day over its records' window.
    expect(deleted(decide(seed(), resp([A, C], 'SOMEONE-ELSES'), undefined, { planRequests }).changes)).toEqual(['12', '14']);
  });

  it('a single record covering part of a whole-day request deletes the rest of that day (a DNLD would delete nothing)', () => {
    const planRequests = requests('MSGX-RQ8-000001', at('14', '0000'), at('14', '2359'));
    expect(deleted(decide(seed(), resp([A], 'MSGX-RQ8-000001'), undefined, { planRequests }).changes)).toEqual(['12', '13', '14']);
    expect(deleted(decide(seed(), resp([A], null), undefined, { planRequests }).changes)).toEqual([]);
  });

  it('an empty RESP naming the request empties the requested window (interface.md), and only it', () => {
    const planRequests = requests('MSGX-RQ9-000002', at('15', '0000'), at('15', '2359'));
    const d = decide(seed(), resp([], 'MSGX-RQ9-000002'), undefined, { planRequests });
    expect(deleted(d.changes)).toEqual(['15']);
    expect(summaryOf(d.changes)).toMatchObject({ windowStart: at('15', '0000'), windowEnd: at('15', '2359'), request: 'MSGX-RQ9-000002', deleted: 1 });
    // Without a known request an empty RESP has no window and deletes nothing.
    expect(deleted(decide(seed(), resp([], 'MSGX-RQ9-000002')).changes)).toEqual([]);
  });

  it('the requested window still never deletes a flight of a day before the message date', () => {
    const flights = fold([schdXml('DNLD', [fltr('21', '13MAR252200'), fltr('22', '14MAR250100')], { dttm: '20250313080000' })]);
    const planRequests = requests('MSGX-RQ10-000003', at('13', '0000'), at('14', '2359'));
    expect(deleted(decide(flights, resp([], 'MSGX-RQ10-000003'), undefined, { planRequests }).changes)).toEqual(['22']);
  });

  it('a DNLD naming a request in RMID is still a DNLD', () => {
    const planRequests = requests('MSGX-RQ11-000004', at('14', '0000'), at('14', '2359'));
    const d = decide(seed(), decodeOk(schdXml('DNLD', [A], { ...TODAY, seqn: '2', extra: '<RMID>MSGX-RQ11-000004</RMID>' })), undefined, { planRequests });
    expect(deleted(d.changes)).toEqual([]);
    expect(summaryOf(d.changes)).not.toHaveProperty('request');
  });
});

describe('ADFT', () => {
  it('creates and updates, never deletes, has no snapshot summary', () => {
    const flights = fold([schdXml('DNLD', [A, B], TODAY)]);
    const d = step(flights, schdXml('ADFT', [fltr('12', '14MAR251100', '<ACFT>333</ACFT>'), fltr('16', '14MAR251500')], { seqn: '2' }));
    expect(d.handler).toBe('schdUpsert.ADFT');
    expect(d.changes).toEqual([
      { type: 'FlightUpdated', flid: '12', fields: { aircraftType: '333' } },
      expect.objectContaining({ type: 'FlightCreated', flid: '16' }),
    ]);
    expect(flights.get('11')!.deleted).toBe(false);
  });

  it('restores a deleted flight', () => {
    const flights = fold([schdXml('ADFT', [A]), flopXml('FDEL', [['11', '<FDEL/>']], { seqn: '2' })]);
    expect(step(flights, schdXml('ADFT', [A], { seqn: '3' })).changes).toEqual([{ type: 'FlightRestored', flid: '11' }]);
  });

  it('adds a flight of a past day (the past-day rule is for snapshots only)', () => {
    const d = decide(new Map(), decodeOk(schdXml('ADFT', [fltr('9', '13MAR252100')], { dttm: '20250314060000' })));
    expect(d.changes).toEqual([expect.objectContaining({ type: 'FlightCreated', flid: '9', operationDay: '2025-03-13' })]);
  });
});
