/**
 * The one-pass reference decoding (`codec/xmlEntities.ts`) gives exactly what the regular
 * expression it replaced gave, kept here as the oracle, for texts dense in references and in
 * near-references (too many digits, unknown names, non-characters, a missing `;`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEntities, isXmlChar } from '../../src/domain/codec/xmlEntities.ts';

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));/g;

function oracle(text: string): string {
  return text.replace(ENTITY, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name !== undefined) return PREDEFINED[name] ?? whole;
    const cp = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? '', 10);
    return isXmlChar(cp) ? String.fromCodePoint(cp) : whole;
  });
}

const pieces = [
  '&', '#', 'x', 'X', ';', '0', '1', '9', 'a', 'F', 'f', 'g', 'amp', 'lt', 'gt', 'quot', 'apos', 'nbsp', 'ampx',
  '&amp;', '&#x56FD;', '&#20013;', '&#0;', '&#xD800;', '&#x10FFFF;', '&#x110000;', '&#1114111;', '&#x0000041;',
  '&#12345678;', '&#1234567;', '&#x123456;', '&#x1234567;', ' ', '延', '\uD83D', '\uDE00',
];

describe('decodeEntities', () => {
  it.each([
    ['a&amp;b', 'a&b'], ['&amp;lt;', '&lt;'], ['&#x56FD;&#20013;', '国中'], ['&#0;', '&#0;'], ['&nbsp;', '&nbsp;'],
    ['&#x0000041;', '&#x0000041;'], ['&#000065;', 'A'], ['&#X41;', '&#X41;'], ['&&lt;', '&<'], ['&amp', '&amp'], ['no refs', 'no refs'],
  ])('%s → %s', (text, want) => {
    expect(decodeEntities(text)).toBe(want);
    expect(oracle(text)).toBe(want);
  });

  it('matches the regular expression it replaced on texts dense in references', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
      const text = parts.join('');
      expect(decodeEntities(text)).toBe(oracle(text));
    }), { numRuns: 20_000 });
  });
});
