/**
 * msgx redecide hands decoded messages from its page worker to the deciding thread as JSON text
 * (src/write/redecide/decodedPage.ts). That is only sound if JSON loses nothing of what the codec
 * produces: no undefined members, no Dates, no -0 or NaN, no Maps. Checked on every corpus message
 * and a generated day with duplicates and bad input, under two zones and both identity settings.
 */
import { describe, expect, it } from 'vitest';
import { generateDay } from '../../bench/generate.ts';
import { decodeHead } from '../../src/write/pump/decodeHead.ts';
import { corpusXmls } from '../support/corpusDir.ts';

const day = generateDay({ seed: 18, day: '2025-03-14', flights: 60, flopsPerFlight: 4, duplicateRate: 0.03, badRate: 0.05, fullLists: true });
const inputs = [...corpusXmls(), ...day.messages, 'not xml', '<MSG><META/></MSG>'];

describe.each([
  { airportTz: 'Asia/Shanghai', identityIncludeDay: false, airportIata: 'PVG' },
  { airportTz: 'UTC', identityIncludeDay: true, airportIata: undefined },
])('decodeHead under %o', (cfg) => {
  it('gives the same value after JSON.stringify → JSON.parse, for every input', () => {
    const decoded = inputs.map((xml) => decodeHead(xml, false, cfg));
    expect(decoded.filter((d) => d.ok).length).toBeGreaterThan(100);
    expect(decoded.filter((d) => !d.ok).length).toBeGreaterThan(2);
    // toStrictEqual: an undefined member, a Date or a class instance would fail it.
    for (const d of decoded) expect(JSON.parse(JSON.stringify(d))).toStrictEqual(d);
  });
  it('a NUL-replaced input is MALFORMED without being read', () => {
    expect(decodeHead('<MSG/>', true, cfg)).toMatchObject({ ok: false, errorClass: 'MALFORMED', meta: null });
  });
});
