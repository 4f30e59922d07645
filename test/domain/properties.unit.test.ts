/**
 * Property tests: the codec never throws, whatever it is given; decide + evolve are deterministic,
 * survive a JSON round trip of the log (as the pump/projectors replay it from jsonb), keep the
 * operation day and count versions exactly, and re-delivering a message changes nothing more; an
 * owned fold (editing its own states in place) reaches the same states as the copying one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decode, type DecodeResult } from '../../src/domain/codec/decode.ts';
import { isFlightChange, type Change } from '../../src/domain/changes.ts';
import { decide } from '../../src/domain/decide.ts';
import { applyDecision, FoldOwnership, type AppliedEvent } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { flopXml, fltr, schdXml } from './support/buildXml.ts';
import { corpusXmls } from '../support/corpusDir.ts';
import { decodeOk, TZ } from './support/decodeOk.ts';

const CLASSES = new Set(['MALFORMED', 'CODEC_ERROR', 'UNSUPPORTED']);

function wellShaped(r: DecodeResult): boolean {
  return r.ok ? typeof r.message.type === 'string' : CLASSES.has(r.errorClass) && r.error.length > 0;
}

const corpus = corpusXmls();

// Edits that keep most of a real message intact, so decoding gets deep before it fails.
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom('<', '>', '/>', '&', '&amp;', '&#0;', '&#x110000;', '<!DOCTYPE x>', '<![CDATA[', ']]>', '"', '<X>', '</FLOP>', '<FLOP>', '<ESTT/>', '<FLID/>', '\u0000', '延误'),
  ) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 60 }) }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(xml: string, m: Mutation): string {
  const at = m.at % (xml.length + 1);
  switch (m.kind) {
    case 'delete': return xml.slice(0, at) + xml.slice(at + m.length);
    case 'insert': return xml.slice(0, at) + m.text + xml.slice(at);
    case 'duplicate': return xml.slice(0, at + m.length) + xml.slice(at, at + m.length) + xml.slice(at + m.length);
  }
}

describe('decode never throws', { timeout: 60_000 }, () => {
  it('on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (s) => wellShaped(decode(s, { tz: TZ }))), { numRuns: 500 });
  });

  it('on XML-ish token soup', () => {
    const token = fc.constantFrom(
      '<MSG>', '</MSG>', '<META>', '</META>', '<SNDR>AODB</SNDR>', '<SEQN>1</SEQN>', '<DTTM>20250314080000</DTTM>',
      '<TYPE>FLOP</TYPE>', '<TYPE>SCHD</TYPE>', '<STYP>ESTT</STYP>', '<STYP>DNLD</STYP>', '<STYP>GTDT</STYP>', '<FLOP>', '</FLOP>',
      '<FLID>1</FLID>', '<ESTT>14MAR250930</ESTT>', '<ESTT/>', '<SCHD>', '</SCHD>', '<FLTR>', '</FLTR>', '<SODT>14MAR250930</SODT>',
      '<GTDT GTNO="1">', '</GTDT>', '<GATE>G1</GATE>', '<DELY CODE="1" DURA="0010"/>', '&amp;', '&lt;', 'x', ' ', '<RECS>1</RECS>',
    );
    fc.assert(fc.property(fc.array(token, { maxLength: 40 }), (ts) => wellShaped(decode(ts.join(''), { tz: TZ }))), { numRuns: 500 });
  });

  it('on mutated corpus messages, and decides the same way twice', () => {
    fc.assert(fc.property(fc.constantFrom(...corpus), fc.array(mutation, { minLength: 1, maxLength: 4 }), (xml, ms) => {
      const text = ms.reduce(mutate, xml);
      const a = decode(text, { tz: TZ });
      expect(wellShaped(a)).toBe(true);
      expect(JSON.stringify(decode(text, { tz: TZ }))).toBe(JSON.stringify(a));
    }), { numRuns: 1000 });
  });
});

// ---- generated message streams -------------------------------------------------------------

const pad = (n: number): string => String(n).padStart(2, '0');
const flid = fc.constantFrom('1', '2', '3', '4', '5', '6');
const day = fc.constantFrom('13', '14', '15');
const time = fc.tuple(day, fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45)).map(([d, h, m]) => `${d}MAR25${pad(h)}${pad(m)}`);
const code = fc.constantFrom('A1', 'B2', '738', '延误');
const opt = (tag: string, value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(fc.constant(''), fc.constant(`<${tag}/>`), value.map((v) => `<${tag}>${v}</${tag}>`));
const gates = fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 4 }), code), { selector: ([n]) => n, maxLength: 3 })
  .map((gs) => (gs.length === 0 ? '<GTDT/>' : gs.map(([n, g]) => `<GTDT GTNO="${n}"><GATE>${g}</GATE></GTDT>`).join('')));

const record = fc.tuple(flid, time, opt('ACFT', code), opt('ESTT', time), fc.option(gates, { nil: '' }))
  .map(([f, sodt, ...rest]) => ({ flid: f, xml: fltr(f, sodt, rest.join('')) }));

const flopInner: Record<string, fc.Arbitrary<string>> = {
  ESTT: opt('ESTT', time).filter((s) => s !== ''),
  ACFT: opt('ACFT', code).filter((s) => s !== ''),
  CNCL: opt('CNCL', time).filter((s) => s !== ''),
  FDIV: fc.constantFrom('<FDIV DDES="PVG" DDIR="TO"/>', '<FDIV/>'),
  GTDT: gates,
  DELY: fc.constantFrom('<DELY CODE="93" STRT="14MAR251040" DURA="0025"/><DELY CODE="81"/>', '<DELY/>'),
  FDEL: fc.constant('<FDEL/>'),
};

const message = (seqn: number): fc.Arbitrary<string> => fc.oneof(
  fc.tuple(fc.constantFrom('DNLD', 'RESP', 'ADFT'), fc.uniqueArray(record, { selector: (r) => r.flid, maxLength: 4 }), day)
    .map(([styp, recs, d]) => schdXml(styp, recs.map((r) => r.xml), { seqn: String(seqn), dttm: `202503${d}060000` })),
  fc.constantFrom(...Object.keys(flopInner)).chain((styp) =>
    fc.uniqueArray(fc.tuple(flid, flopInner[styp]!), { selector: ([f]) => f, minLength: 1, maxLength: 3 })
      .map((blocks) => flopXml(styp, blocks, { seqn: String(seqn) }))),
);

const stream = fc.integer({ min: 1, max: 14 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => message(i + 1))));

interface Run { flights: Map<string, FlightState>; log: Change[][] }

function run(xmls: readonly string[]): Run {
  const flights = new Map<string, FlightState>();
  const log: Change[][] = [];
  xmls.forEach((xml, i) => {
    const msg = decodeOk(xml);
    const { changes } = decide(flights, msg);
    log.push(changes);
    applyDecision(flights, { position: String(i + 1), msgId: String(i + 1), recordedAt: msg.meta.sentAt, changes });
  });
  return { flights, log };
}

function replay(log: Change[][]): Map<string, FlightState> {
  const flights = new Map<string, FlightState>();
  const stored = JSON.parse(JSON.stringify(log)) as Change[][];
  stored.forEach((changes, i) => applyDecision(flights, {
    position: String(i + 1), msgId: String(i + 1), recordedAt: '', changes,
  }));
  return flights;
}

const withoutStamp = (m: Map<string, FlightState>): Record<string, unknown> =>
  Object.fromEntries([...m].map(([k, s]) => [k, { ...s, updatedAt: null }]));

// Each run folds up to 14 messages; 150 runs keep the file within a few seconds on a busy CI box.
const STREAM_RUNS = 150;

describe('decide + evolve', { timeout: 60_000 }, () => {
  it('are deterministic and replay identically from the JSON log', () => {
    fc.assert(fc.property(stream, (xmls) => {
      const a = run(xmls);
      const b = run(xmls);
      expect(JSON.stringify(b.log)).toBe(JSON.stringify(a.log));
      expect(JSON.stringify([...b.flights])).toBe(JSON.stringify([...a.flights]));
      expect(withoutStamp(replay(a.log))).toEqual(withoutStamp(a.flights));
    }), { numRuns: STREAM_RUNS });
  });

  it('keep the operation day of creation and bump the version once per decision that changes the flight', () => {
    fc.assert(fc.property(stream, (xmls) => {
      const { flights, log } = run(xmls);
      const days = new Map<string, string>();
      const counts = new Map<string, number>();
      for (const decision of log) {
        const touched = new Set<string>();
        for (const c of decision) {
          if (!isFlightChange(c)) continue;
          if (c.type === 'FlightCreated' && !days.has(c.flid)) days.set(c.flid, c.operationDay);
          touched.add(c.flid);
        }
        for (const f of touched) counts.set(f, (counts.get(f) ?? 0) + 1);
      }
      for (const [f, s] of flights) {
        expect(s.operationDay).toBe(days.get(f));
        expect(s.stateVersion).toBe(counts.get(f));
      }
    }), { numRuns: STREAM_RUNS });
  });

  it('re-deciding a message right after applying it changes no flight', () => {
    fc.assert(fc.property(stream, (xmls) => {
      const { flights } = run(xmls.slice(0, -1));
      const last = decodeOk(xmls[xmls.length - 1]!);
      applyDecision(flights, { position: 'x', msgId: null, recordedAt: '', changes: decide(flights, last).changes });
      expect(decide(flights, last).changes.filter(isFlightChange)).toEqual([]);
    }), { numRuns: STREAM_RUNS });
  });

  it('an owned fold (FoldOwnership) reaches the states of the copying fold and never edits a state it does not own', () => {
    const texts = (m: ReadonlyMap<string, FlightState>): string => JSON.stringify([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const cuts = fc.tuple(fc.nat(), fc.nat());
    fc.assert(fc.property(stream, cuts, fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }), (xmls, [c1, c2], operator) => {
      const stored = JSON.parse(JSON.stringify(run(xmls).log)) as Change[][];
      // Some decisions without a message (operator decisions): no sources for them.
      const event = (i: number): AppliedEvent => ({
        position: String(i + 1), msgId: operator[i] ? null : String(i + 1), recordedAt: `2025-03-14T00:00:${String(i).padStart(2, '0')}Z`, changes: stored[i]!,
      });
      const copying = new Map<string, FlightState>();
      stored.forEach((_, i) => applyDecision(copying, event(i)));
      // The owned fold starts from states it did not make (a snapshot's), and releases them midway.
      const [from, mid] = [c1 % (stored.length + 1), c2 % (stored.length + 1)].sort((a, b) => a - b) as [number, number];
      const shared = new Map<string, FlightState>();
      for (let i = 0; i < from; i++) applyDecision(shared, event(i));
      const sharedBefore = texts(shared);
      const owned = new Map(shared);
      const own = new FoldOwnership();
      for (let i = from; i < mid; i++) applyDecision(owned, event(i), own);
      own.release();
      const released = new Map(owned);
      const releasedBefore = texts(released);
      for (let i = mid; i < stored.length; i++) applyDecision(owned, event(i), own);
      expect(texts(owned)).toBe(texts(copying));
      expect(texts(shared)).toBe(sharedBefore);
      expect(texts(released)).toBe(releasedBefore);
    }), { numRuns: STREAM_RUNS });
  });
});
