/**
 * The pump's maps answer leg-key lookups as a scan of their states does (src/domain/legIndex.ts):
 * the write model's ModelFlights, also when it starts from a snapshot whose days are still
 * undecoded, and the overlay a group is decided against.
 */
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { decide } from '../../src/domain/decide.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { flidsOfLeg, legIndexKey, legKeyOf, LegIndexedFlights, type LegMap } from '../../src/domain/legIndex.ts';
import { FlightOverlay } from '../../src/write/pump/flightOverlay.ts';
import { ModelFlights } from '../../src/write/pump/modelFlights.ts';
import { decodeImage, encodeImage } from '../../src/write/snapshot/snapshotCodec.ts';
import { fltr, schdXml } from '../domain/support/buildXml.ts';
import { EMPTY_REFERENCE } from '../../src/domain/reference/state.ts';
import { NO_PLAN_REQUESTS } from '../../src/domain/planRequests.ts';

/** Three days of a plan: 40 flights a day, some numbers repeated in both directions. */
function plan(): Map<string, FlightState> {
  const flights = new Map<string, FlightState>();
  ['14', '15', '16'].forEach((day, d) => {
    const records = Array.from({ length: 40 }, (_, i) => {
      const flid = String(880000 + d * 100 + i);
      const dir = i % 2 === 0 ? 'D' : 'A';
      return fltr(flid, `${day}MAR25${String(6 + (i % 16)).padStart(2, '0')}${i % 2 === 0 ? '10' : '40'}`,
        `<ALCD>${i % 3 === 0 ? 'CA' : 'MU'}</ALCD><FLNO>${i % 3 === 0 ? 'CA' : 'MU'}${1500 + Math.floor(i / 2)}</FLNO><MVIN>${dir}</MVIN>`);
    });
    const r = decode(schdXml('DNLD', records, { seqn: String(d + 1), dttm: `202503${day}000000` }), { tz: 'Asia/Shanghai' });
    if (!r.ok) throw new Error(r.error);
    applyDecision(flights, { position: String(d + 1), msgId: String(d + 1), recordedAt: '2025-03-14T00:00:00.000Z', changes: decide(flights, r.message).changes });
  });
  return flights;
}

/** Every key of `flights` looked up through `map` gives what a scan of `map` gives. */
function expectScanAnswers(map: LegMap, flights: Iterable<FlightState>): void {
  const keys = new Set<string>();
  for (const f of flights) {
    const k = legKeyOf(f);
    if (k !== null) keys.add(k);
  }
  expect(keys.size).toBeGreaterThan(50);
  const scanned = new Map(map);
  for (const key of keys) expect(flidsOfLeg(map, key).sort(), key).toEqual(flidsOfLeg(scanned, key).sort());
}

describe('leg index of the write model', () => {
  it('ModelFlights: indexed on first lookup, kept by set and delete', () => {
    const flights = plan();
    const model = new ModelFlights();
    for (const [k, v] of flights) model.set(k, v);
    expectScanAnswers(model, flights.values());
    const f = model.get('880000')!;
    model.set('880000', { ...f, flightNo: 'CA9999' });
    expect(flidsOfLeg(model, legKeyOf(f)!)).not.toContain('880000');
    expect(flidsOfLeg(model, legIndexKey('CA', '9999', f.direction!, f.operationDay))).toEqual(['880000']);
    model.delete('880000');
    expect(flidsOfLeg(model, legIndexKey('CA', '9999', f.direction!, f.operationDay))).toEqual([]);
  });

  it('ModelFlights from a snapshot: undecoded days are indexed when a lookup names them, states decoded or replaced meanwhile count as they are now', async () => {
    const flights = plan();
    const image = await decodeImage(await encodeImage({ position: '3', latestDay: '2025-03-16', flights, reference: EMPTY_REFERENCE, planRequests: NO_PLAN_REQUESTS }));
    const model = new ModelFlights();
    model.copyFrom(image.flights);
    expect(model.pendingCount).toBe(flights.size);
    // A day decoded by a plain get before the index exists, a state replaced after it.
    model.get('880105');
    const key = legKeyOf(flights.get('880000')!)!;
    expect(flidsOfLeg(model, key)).toEqual(['880000']);
    // Only the day asked about (the 14th) is decoded by the lookup; the 16th stays in its chunk.
    expect(model.chunkOf('880200')).toBeDefined();
    model.set('880201', { ...flights.get('880201')!, flightNo: 'MU7777' });
    expectScanAnswers(model, flights.values());
  });

  it('the overlay answers with its own states over the base, and leaves out what it removed', () => {
    const flights = plan();
    const base = LegIndexedFlights.of(flights);
    const overlay = new FlightOverlay(base);
    const f = flights.get('880000')!;
    const key = legKeyOf(f)!;
    overlay.set('990000', { ...f, flid: '990000' });
    expect(flidsOfLeg(overlay, key).sort()).toEqual(['880000', '990000']);
    overlay.delete('880000');
    overlay.set('880102', { ...flights.get('880102')!, flightNo: 'MU9' });
    expect(flidsOfLeg(overlay, key)).toEqual(['990000']);
    expectScanAnswers(overlay, flights.values());
    // Over a base without an index (a plain map) it scans the base.
    expectScanAnswers(new FlightOverlay(flights), flights.values());
  });
});
