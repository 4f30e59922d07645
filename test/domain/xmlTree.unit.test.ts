/**
 * The single-pass XML reader against the codec's first reader (fast-xml-parser's validator +
 * parser, kept as a test oracle): the same tree for every well-formed document, never a document
 * the first reader refused, and the non-XML that reader let through is now refused. Text is
 * compared without whitespace: the first reader trimmed each text piece, the codec keeps the
 * whitespace between pieces (interface.md), tested on its own below.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseXml, type XmlElement } from '../../src/domain/codec/xmlTree.ts';
import { corpusXmls } from '../support/corpusDir.ts';
import { referenceParseXml } from './support/referenceXmlTree.ts';
import { mutatedXml, wellFormedXml } from './support/xmlDocuments.ts';

interface Plain { name: string; attrs: [string, string][]; text: string; children: Plain[] }
const plain = (e: XmlElement): Plain => ({
  name: e.name,
  attrs: [...e.attrs].sort(([a], [b]) => (a < b ? -1 : 1)),
  text: e.text.replace(/\s+/g, ''),
  children: e.children.map(plain),
});
const tree = (xml: string): Plain | string => {
  const r = parseXml(xml);
  return r.ok ? plain(r.root) : r.error;
};
const referenceTree = (xml: string): Plain | string => {
  const r = referenceParseXml(xml);
  return r.ok ? plain(r.root) : r.error;
};

describe('parseXml matches the first reader', { timeout: 60_000 }, () => {
  it('on every corpus message', () => {
    const xmls = corpusXmls();
    expect(xmls.length).toBeGreaterThan(40);
    for (const xml of xmls) {
      const [mine, first] = [tree(xml), referenceTree(xml)];
      // Refusal texts differ between the readers; trees must not.
      if (typeof first === 'string') expect(typeof mine).toBe('string');
      else expect(mine).toEqual(first);
    }
  });

  it('on generated well-formed documents (comments in text, CDATA, PIs, entities, CRLF, quotes, odd names)', () => {
    fc.assert(fc.property(wellFormedXml, (xml) => {
      const mine = tree(xml);
      expect(typeof mine).toBe('object');
      expect(mine).toEqual(referenceTree(xml));
    }), { numRuns: 1500 });
  });

  it('never accepts what the first reader refused, and builds the same tree when both accept', () => {
    fc.assert(fc.property(mutatedXml, (xml) => {
      const mine = tree(xml);
      if (typeof mine === 'object') expect(mine).toEqual(referenceTree(xml));
    }), { numRuns: 4000 });
  });
});

describe('parseXml refuses', () => {
  it.each([
    ['empty input', ''],
    ['text only', 'MSG'],
    ['an unclosed element', '<MSG><A>1</A>'],
    ['a mismatched end tag', '<MSG><A></B></MSG>'],
    ['an end tag with attributes', '<MSG></MSG x="1">'],
    ['a bare & in text', '<MSG>AT&T</MSG>'],
    ['an unterminated reference', '<MSG>&amp</MSG>'],
    ['&;', '<MSG>&;</MSG>'],
    ['a reference name longer than 20', '<MSG>&abcdefghijklmnopqrstu;</MSG>'],
    ['two roots', '<MSG/><MSG/>'],
    ['an attribute without value', '<MSG a/>'],
    ['an unquoted attribute', '<MSG a=1/>'],
    ['attributes without a space between', '<MSG a="1"b="2"/>'],
    ['a repeated attribute', '<MSG a="1" a="2"/>'],
    ['an open quote', '<MSG a="1/>'],
    ['an invalid tag name', '<1MSG/>'],
    ['a space after <', '< MSG/>'],
    ['an XML declaration not at the start', ' <?xml version="1.0"?><MSG/>'],
    ['an unterminated comment', '<MSG><!-- x</MSG>'],
    ['an unterminated CDATA section', '<MSG><![CDATA[x</MSG>'],
    // Not XML, but the first reader let these through:
    ['a <!…> declaration inside content', '<MSG><!FOO></MSG>'],
    ['a CDATA section outside the root', '<MSG/><![CDATA[ ]]>'],
    ['text after a self-closing root', '<MSG/>x'],
    ['a reference after the root', '<MSG></MSG>&amp;'],
    ['</A/> as an end tag', '<MSG><A></A/></MSG>'],
    ['U+FEFF inside a name', '<MS\uFEFFG/>'],
    // interface.md: not well-formed, although the first reader took them.
    ["a '<' inside an attribute value", '<MSG a="x<y"/>'],
    ['a bare & inside an attribute value', '<MSG a="AT&T"/>'],
    ['an undeclared entity', '<MSG>a&nbsp;b</MSG>'],
    ['an undeclared entity in an attribute', '<MSG a="&nbsp;"/>'],
    ['a reference to U+0000', '<MSG>&#0;</MSG>'],
    ['a reference beyond Unicode', '<MSG>&#x110000;</MSG>'],
    ['a character reference without digits', '<MSG>&#;</MSG>'],
    ['a DOCTYPE', '<!DOCTYPE MSG><MSG/>'],
    ['a DOCTYPE with an internal subset', '<?xml version="1.0"?>\n<!DOCTYPE MSG [<!ENTITY a "b">]><MSG>&a;</MSG>'],
    ['an ENTITY declaration in content', '<MSG><!ENTITY a "b"></MSG>'],
  ])('%s', (_what, xml) => {
    const r = parseXml(xml);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toMatch(/^not well-formed XML: .+ \(line \d+, col \d+\)$/);
  });

  it('nesting deeper than 101 elements (as the first reader), but not 101', () => {
    const nest = (depth: number): string => '<A>'.repeat(depth) + '</A>'.repeat(depth);
    expect(parseXml(nest(101)).ok).toBe(true);
    expect(referenceParseXml(nest(101)).ok).toBe(true);
    expect(parseXml(nest(102))).toMatchObject({ ok: false, error: expect.stringContaining('deeper than 101') });
    expect(referenceParseXml(nest(102)).ok).toBe(false);
    expect(parseXml(`${'<A>'.repeat(101)}<B/>${'</A>'.repeat(101)}`).ok).toBe(true);
  });

  it('DOCTYPE and ENTITY declarations by name', () => {
    expect(parseXml('<!DOCTYPE MSG SYSTEM "file:///etc/passwd"><MSG/>')).toMatchObject({
      ok: false, error: expect.stringContaining('DOCTYPE/ENTITY declarations are refused'),
    });
  });

  it('and names the place', () => {
    expect(parseXml('<MSG>\n  <A>AT&T</A>\n</MSG>')).toEqual({
      ok: false, error: "not well-formed XML: '&' does not start a reference (line 2, col 8)",
    });
  });
});

describe('parseXml reads', () => {
  it('<!DOCTYPE and <!ENTITY inside CDATA or a comment as text', () => {
    const r = parseXml('<MSG><A><![CDATA[<!DOCTYPE x>]]></A><!-- <!ENTITY y "z"> --><B><!-- <!DOCTYPE --> t </B></MSG>');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.root.children.map((c) => c.text)).toEqual(['<!DOCTYPE x>', 't']);
  });

  it('text as the whole text content: pieces join with the whitespace between them, only the ends trimmed', () => {
    const root = (xml: string): XmlElement => {
      const r = parseXml(xml);
      if (!r.ok) throw new Error(r.error);
      return r.root;
    };
    expect(root('<A> x <!--c--> y </A>').text).toBe('x  y');
    expect(root('<A> x <?pi?> y </A>').text).toBe('x  y');
    expect(root('<A> x <B/> y </A>').text).toBe('x  y');
    expect(root('<A> x <![CDATA[ c ]]> y </A>').text).toBe('x  c  y');
    expect(root('<REMC>Gate <![CDATA[A&B]]> closed</REMC>').text).toBe('Gate A&B closed');
    expect(root('<A>a &amp; <![CDATA[b]]>\t&lt;c&gt; </A>').text).toBe('a & b\t<c>');
    expect(root('<A>\n\t<B>1</B>\n\t<C/>\n</A>').text).toBe('');
    expect(root('<A>a\r\nb\rc</A>').text).toBe('a\nb\nc');
    expect(root('<A x=" &amp;lt; " y=\'"\'/>').attrs).toEqual(new Map([['x', '&lt;'], ['y', '"']]));
    expect(root('<A><constructor/><toString/></A>').children.map((c) => c.name)).toEqual(['_reserved_constructor', '__toString']);
  });
});
