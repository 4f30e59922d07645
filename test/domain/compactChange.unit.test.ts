/**
 * The stored form of a plan snapshot's created flights (src/domain/compactChange.ts,
 * docs/projections.md "Big decisions"): compact → JSON → expanded is the old full form, byte for
 * byte, and the compact form carries no null field and no empty list.
 */
import { describe, expect, it } from 'vitest';
import type { Change, FlightCreated } from '../../src/domain/changes.ts';
import { compactChanges, expandChanges } from '../../src/domain/compactChange.ts';
import { decide } from '../../src/domain/decide.ts';
import { decisionBody } from '../../src/domain/decisionPayload.ts';
import { fltr, schdXml } from './support/buildXml.ts';
import { decodeOk } from './support/decodeOk.ts';

const TODAY = { dttm: '20250314020000' };

function planChanges(n: number): Change[] {
  const records = Array.from({ length: n }, (_, i) => {
    const hh = String(i % 24).padStart(2, '0');
    const extra = i % 3 === 0 ? '<ALCD>ZH</ALCD><FLNO>ZH1</FLNO><GTDT GTNO="1"><GATE>G1</GATE></GTDT>' : i % 3 === 1 ? '<MVIN>A</MVIN>' : '';
    return fltr(String(1000 + i), `14MAR25${hh}00`, extra);
  });
  return [...decide(new Map(), decodeOk(schdXml('DNLD', records, TODAY))).changes];
}

describe('compact created flights', () => {
  const changes = planChanges(300);
  const stored = JSON.parse(JSON.stringify(compactChanges(changes))) as Change[];

  it('expands to the full form, byte for byte', () => {
    expect(changes.filter((c) => c.type === 'FlightCreated')).toHaveLength(300);
    expect(JSON.stringify(expandChanges(stored))).toBe(JSON.stringify(changes));
  });

  it('stores no null field and no empty list of a created flight', () => {
    for (const c of stored.filter((x): x is FlightCreated => x.type === 'FlightCreated')) {
      expect(Object.values(c.fields)).not.toContain(null);
      for (const list of Object.values(c.lists)) expect(list.length).toBeGreaterThan(0);
    }
    // Minimal records: the stored form is a small part of the full one.
    expect(JSON.stringify(stored).length * 5).toBeLessThan(JSON.stringify(changes).length);
  });

  it('a full FlightCreated (a log written before) expands to itself', () => {
    expect(JSON.stringify(expandChanges(changes))).toBe(JSON.stringify(changes));
  });

  it('decisionBody reads a stored Applied payload back full', () => {
    const body = decisionBody('7', 'Applied', { changes: stored });
    expect(body.kind).toBe('Applied');
    expect(JSON.stringify(body.kind === 'Applied' && body.payload.changes)).toBe(JSON.stringify(changes));
  });
});
