/**
 * interface.md: a mutation that leaves the XML well-formed and META valid never makes a message
 * MALFORMED. Every corpus message that decodes (or is CODEC_ERROR / UNSUPPORTED) is re-written the
 * ways real AODBs write it — indentation with tabs and newlines, the xsi root attributes, spaces
 * around `=`, unknown META children (nested, repeated, empty), any-case months, text as CDATA or
 * character references, comments and processing instructions between elements, unknown body
 * elements — and must keep its class; a decoded message must decode to the same message.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { parseXml, type XmlElement } from '../../src/domain/codec/xmlTree.ts';
import { corpusXmls } from '../support/corpusDir.ts';
import { TZ } from './support/decodeOk.ts';

interface Style {
  indent: boolean;
  xsi: boolean;
  spacesAroundEq: boolean;
  metaExtras: string[];
  months: 'upper' | 'lower' | 'mixed';
  cdata: boolean;
  charRefs: boolean;
  comments: boolean;
  unknownElements: boolean;
}

const style: fc.Arbitrary<Style> = fc.record({
  indent: fc.boolean(),
  xsi: fc.boolean(),
  spacesAroundEq: fc.boolean(),
  metaExtras: fc.array(fc.constantFrom(
    '<EXT><ORIG>CIIMS</ORIG></EXT>', '<PRIO>1</PRIO>', '<PRIO>2</PRIO>', '<XTRA/>', '<HOPS><HOP>1</HOP><HOP>2</HOP></HOPS>',
    '<RCVR>OMMS</RCVR>', '<NOTE>延误 &amp; more</NOTE>',
  ), { maxLength: 4 }),
  months: fc.constantFrom('upper', 'lower', 'mixed'),
  cdata: fc.boolean(),
  charRefs: fc.boolean(),
  comments: fc.boolean(),
  unknownElements: fc.boolean(),
});

const AODB_TIME = /^(\d{2})([A-Za-z]{3})(\d{6})$/;

function monthCase(text: string, how: Style['months']): string {
  const m = AODB_TIME.exec(text);
  if (!m) return text;
  const mon = how === 'upper' ? m[2]!.toUpperCase() : how === 'lower' ? m[2]!.toLowerCase() : m[2]![0]!.toUpperCase() + m[2]!.slice(1).toLowerCase();
  return `${m[1]}${mon}${m[3]}`;
}

const escapeText = (t: string, s: Style): string => {
  const escaped = t.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return s.charRefs ? escaped.replace(/[A-Z]/g, (c) => `&#${c.charCodeAt(0)};`) : escaped;
};
const escapeAttr = (v: string): string => v.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');

function serialize(el: XmlElement, s: Style, depth: number, isRoot: boolean): string {
  const nl = s.indent ? `\n${'\t'.repeat(depth + 1)}` : '';
  const end = s.indent ? `\n${'\t'.repeat(depth)}` : '';
  const eq = s.spacesAroundEq ? ' = ' : '=';
  const attrs = [...el.attrs].map(([k, v]) => ` ${k}${eq}"${escapeAttr(v)}"`);
  if (isRoot && s.xsi && !el.attrs.has('xmlns:xsi')) {
    attrs.push(` xmlns:xsi${eq}"http://www.w3.org/2001/XMLSchema-instance"`, ` xsi:noNamespaceSchemaLocation${eq}"unisysaodbsis.xsd"`);
  }
  const open = `<${el.name}${attrs.join('')}`;
  if (el.children.length === 0) {
    if (el.text === '') return `${open}/>`;
    const text = monthCase(el.text, s.months);
    const body = s.cdata && !text.includes(']]>') ? `<![CDATA[${text}]]>` : escapeText(text, s);
    return `${open}>${body}</${el.name}>`;
  }
  const kids = el.children.map((c) => serialize(c, s, depth + 1, false));
  if (el.name === 'META') kids.push(...s.metaExtras);
  if (s.comments) kids.unshift('<!-- sent by the AODB -->', '<?aodb hint="x"?>');
  if (s.unknownElements && el.name !== 'META' && !isRoot) kids.push('<ZQXW><ZQXV>1</ZQXV></ZQXW>');
  return `${open}>${kids.map((k) => nl + k).join('')}${end}</${el.name}>`;
}

const corpus = corpusXmls()
  .map((xml) => ({ xml, tree: parseXml(xml), decoded: decode(xml, { tz: TZ }) }))
  .filter((c) => c.tree.ok && !(c.decoded.ok === false && c.decoded.errorClass === 'MALFORMED'));

describe('well-formed mutations with valid META', () => {
  it('has corpus messages to mutate', () => {
    expect(corpus.length).toBeGreaterThan(60);
  });

  it('never yield MALFORMED, and keep what the message decodes to', () => {
    fc.assert(fc.property(fc.nat({ max: corpus.length - 1 }), style, (i, s) => {
      const c = corpus[i]!;
      const root = (c.tree as { ok: true; root: XmlElement }).root;
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root, s, 0, true)}`;
      const r = decode(xml, { tz: TZ });
      expect(r.ok ? 'ok' : r.errorClass, xml).not.toBe('MALFORMED');
      if (c.decoded.ok) {
        expect(r.ok, xml).toBe(true);
        // The META keeps SNDR/SEQN/TYPE/STYP; a flight message's body decodes to the same thing (reference
        // records are kept whole, unknown elements included, so only their class is compared).
        if (r.ok && (c.decoded.message.type === 'FLOP' || c.decoded.message.type === 'SCHD')) {
          expect({ ...r.message, meta: { ...r.message.meta, rcvr: null } }).toEqual({ ...c.decoded.message, meta: { ...c.decoded.message.meta, rcvr: null } });
        }
      } else {
        expect(r.ok ? 'ok' : r.errorClass).toBe(c.decoded.errorClass);
      }
    }), { numRuns: 600 });
  });
});
