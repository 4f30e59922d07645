/**
 * A replayed message (decided after later ones) never overwrites what a later message set; FLOP
 * blocks each get their own outcome.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/domain/decide.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { flopXml, fltr, schdXml } from './support/buildXml.ts';
import { decodeOk } from './support/decodeOk.ts';

const at = (hhmm: string): string => new Date(`2025-03-14T${hhmm.slice(0, 2)}:${hhmm.slice(2)}:00+08:00`).toISOString();
const SEED = schdXml('ADFT', [fltr('1', '14MAR251040', '<ALCD>CA</ALCD><MVIN>D</MVIN>'), fltr('2', '14MAR251200', '<MVIN>D</MVIN>')]);

/** Decide and apply `xml` as message `msgId`. */
function step(flights: Map<string, FlightState>, msgId: number, xml: string) {
  const message = decodeOk(xml);
  const d = decide(flights, message, undefined, { msgId: String(msgId) });
  if (d.skipped === undefined) applyDecision(flights, { position: String(msgId), msgId: String(msgId), recordedAt: message.meta.sentAt, changes: d.changes });
  return d;
}

/** The flights after the seed plan, decided as message 1. */
function seeded(): Map<string, FlightState> {
  const flights = new Map<string, FlightState>();
  step(flights, 1, SEED);
  return flights;
}

describe('stale: a replayed message against the flight as it is now', () => {
  it('does not overwrite a time a later message set, and says so', () => {
    const flights = seeded();
    step(flights, 10, flopXml('ESTT', [['1', '<ESTT>14MAR251110</ESTT>']]));
    // Message 5 was parked, then replayed after message 10.
    const d = step(flights, 5, flopXml('ESTT', [['1', '<ESTT>14MAR251050</ESTT>']]));
    expect(d).toMatchObject({ skipped: 'stale', changes: [], staleFlids: ['1'], blocks: [{ flid: '1', outcome: 'stale' }] });
    expect(flights.get('1')!.estimatedTime).toBe(at('1110'));
  });

  it('applies what no later message touched', () => {
    const flights = seeded();
    step(flights, 10, flopXml('ESTT', [['1', '<ESTT>14MAR251110</ESTT>']]));
    const d = step(flights, 5, flopXml('RENO', [['1', '<RENO>B1234</RENO>']]));
    expect(d.skipped).toBeUndefined();
    expect(flights.get('1')).toMatchObject({ registration: 'B1234', estimatedTime: at('1110') });
  });

  it('keeps the parts of a unit a later message did not set, and lists of later messages', () => {
    const flights = seeded();
    step(flights, 10, flopXml('GTDT', [['1', '<GTDT GTNO="1"><GATE>G9</GATE></GTDT>']]));
    const d = step(flights, 5, flopXml('GTDT', [['1', '<GTDT GTNO="1"><GATE>G1</GATE></GTDT>']]));
    expect(d.skipped).toBe('stale');
    expect(flights.get('1')!.gates.map((g) => g.code)).toEqual(['G9']);
  });

  it('changes nothing in FIFO order (every setter is older)', () => {
    const flights = seeded();
    step(flights, 2, flopXml('ESTT', [['1', '<ESTT>14MAR251110</ESTT>']]));
    const d = step(flights, 3, flopXml('ESTT', [['1', '<ESTT>14MAR251120</ESTT>']]));
    expect(d.staleFlids).toBeUndefined();
    expect(flights.get('1')!.estimatedTime).toBe(at('1120'));
  });
});

describe('several flights in one FLOP', () => {
  it('decides each block on its own and lists every outcome; SUCCEEDED if any applied', () => {
    const flights = seeded();
    step(flights, 2, flopXml('FDEL', [['2', '<FDEL/>']]));
    const d = step(flights, 3, flopXml('ESTT', [
      ['1', '<ESTT>14MAR251110</ESTT>'], ['2', '<ESTT>14MAR251210</ESTT>'], ['77', '<ESTT>14MAR251210</ESTT>'],
    ]));
    expect(d.skipped).toBeUndefined();
    expect(d.blocks).toEqual([
      { flid: '1', outcome: 'applied' }, { flid: '2', outcome: 'flight-deleted' }, { flid: '77', outcome: 'unknown-flight' },
    ]);
    expect(flights.get('1')!.estimatedTime).toBe(at('1110'));
    expect(flights.get('2')!.estimatedTime).toBeNull();
  });
});
