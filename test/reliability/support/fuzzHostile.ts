/**
 * Hostile fuzz families: entity expansion and external entities, wrong encodings, deep nesting,
 * huge bodies, mutated corpus messages, random text and tag soup.
 */
import fc from 'fast-check';
import type { DecodeResult } from '../../../src/domain/codec/decode.ts';
import { MAX_ATTRIBUTES, MAX_CHILDREN, MAX_ELEMENTS } from '../../../src/domain/codec/xmlLimits.ts';
import { flopXml, msgXml } from '../../domain/support/buildXml.ts';
import { corpusXmls } from '../../support/corpusDir.ts';
import type { Family, FuzzCase, Planted } from './fuzzCase.ts';
import { validFlid, validMessage } from './fuzzXml.ts';

const MiB = 1024 * 1024;
const remarkOf = (r: DecodeResult): string | null | undefined => {
  if (!r.ok || r.message.type !== 'FLOP') return undefined;
  const a = r.message.ops[0]?.action;
  return a?.kind === 'set-fields' ? a.fields.publicRemark : undefined;
};
const exss = (remark: string, flid = '1'): string => flopXml('EXSS', [[flid, `<EXSC>X</EXSC><EXSR>${remark}</EXSR>`]]);

/** Billion laughs, XXE (SYSTEM/PUBLIC, file and network), parameter entities, external DTDs, stray DOCTYPEs. */
export function entityAttacks(planted: Planted): Family {
  const file = `file://${planted.path}`;
  const laughs = (depth: number): string => {
    const decls = ['<!ENTITY lol0 "lol">'];
    for (let i = 1; i <= depth; i++) decls.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
    return `<!DOCTYPE MSG [${decls.join('')}]>`;
  };
  const dtds = fc.oneof(
    fc.integer({ min: 1, max: 12 }).map((d) => ({ dtd: laughs(d), ref: `&lol${d};` })),
    fc.constantFrom(
      { dtd: `<!DOCTYPE MSG [<!ENTITY xxe SYSTEM "${file}">]>`, ref: '&xxe;' },
      { dtd: `<!DOCTYPE MSG [<!ENTITY xxe PUBLIC "-//X//EN" "${file}">]>`, ref: '&xxe;' },
      { dtd: '<!DOCTYPE MSG [<!ENTITY xxe SYSTEM "http://127.0.0.1:1/x">]>', ref: '&xxe;' },
      { dtd: `<!DOCTYPE MSG [<!ENTITY % p SYSTEM "${file}"> %p;]>`, ref: '' },
      { dtd: `<!DOCTYPE MSG [<!ENTITY % d "<!ENTITY x SYSTEM '${file}'>"> %d;]>`, ref: '&x;' },
      { dtd: `<!DOCTYPE MSG SYSTEM "${file}">`, ref: '' },
      { dtd: `<!doctype MSG [<!ENTITY xxe SYSTEM "${file}">]>`, ref: '&xxe;' },
      { dtd: `<!DocType\n\tMSG [<!ENTITY xxe SYSTEM "${file}">]>`, ref: '&xxe;' },
      { dtd: '<!DOCTYPE MSG [<!ENTITY big "' + 'x'.repeat(10_000) + '">]>', ref: '&big;'.repeat(1000) },
    ),
  );
  const placed = fc.tuple(dtds, fc.constantFrom('prolog', 'after-comment', 'body', 'trailing', 'entity-only'))
    .map(([{ dtd, ref }, where]): FuzzCase => {
      const msg = exss(`remark ${ref}`);
      const [decl, rest] = [msg.slice(0, msg.indexOf('\n') + 1), msg.slice(msg.indexOf('\n') + 1)];
      const raw = where === 'prolog' ? `${decl}${dtd}\n${rest}`
        : where === 'after-comment' ? `${decl}<!-- plan -->${dtd}${rest}`
        : where === 'body' ? msg.replace('<FLOP>', `<FLOP>${dtd}`)
        : where === 'trailing' ? `${msg}${dtd}`
        : msg.replace('<FLOP>', `<FLOP><!ENTITY xxe SYSTEM "${file}">`);
      return { raw, expect: ['MALFORMED'], check: (r) => (JSON.stringify(r).includes('lollollol') ? 'an entity was expanded' : null) };
    });
  // Without a DTD no entity can be defined: a reference to an undeclared one is not well-formed
  // (interface.md), never resolved; an escaped one is text, written as it came.
  const undeclared = fc.constantFrom('&xxe;', '&lol9;', '&passwd;', '&nbsp;', '&#38;xxe;', '&amp;xxe;').map((ref): FuzzCase => {
    if (!ref.startsWith('&#38;') && !ref.startsWith('&amp;')) return { raw: exss(`a ${ref} b`), expect: ['MALFORMED'] };
    return { raw: exss(`a ${ref} b`), expect: ['ok'], check: (r) => (remarkOf(r) === 'a &xxe; b' ? null : `remark ${JSON.stringify(remarkOf(r))}`) };
  });
  // Other ways to point a parser at a file: ignored here, never fetched.
  const references = fc.constantFrom(
    exss('r').replace('<FLOP>', `<FLOP><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${file}" parse="text"/>`),
    exss('r').replace('<MSG>', `<?xml-stylesheet type="text/xsl" href="${file}"?><MSG>`),
    exss('r').replace('<MSG>', `<MSG xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="x ${file}">`),
  ).map((raw): FuzzCase => ({ raw, expect: ['ok'] }));
  return {
    name: 'entity expansion and external entities',
    runs: 5_000,
    soakRuns: 50_000,
    arb: fc.oneof({ weight: 4, arbitrary: placed }, { weight: 1, arbitrary: undeclared }, { weight: 1, arbitrary: references }),
  };
}

/** Byte-level accidents: BOMs, declared encodings, latin-1 / UTF-16 bytes read as text. */
export const encodings: Family = {
  name: 'encodings (BOM, declared encodings, latin-1 and UTF-16 bytes)',
  runs: 3_000,
  soakRuns: 30_000,
  arb: fc.tuple(validMessage, fc.integer({ min: 0, max: 6 }), fc.constantFrom('UTF-16', 'ISO-8859-1', 'GBK', 'Shift_JIS', 'EBCDIC', ''))
    .map(([raw, kind, enc]): FuzzCase => {
      switch (kind) {
        case 0: return { raw: `\uFEFF${raw}`, expect: ['ok'] };
        case 1: return { raw: raw.replace('encoding="UTF-8"', `encoding="${enc}"`), expect: ['ok'] }; // the text is already decoded
        case 2: return { raw: Buffer.from(raw, 'utf8').toString('latin1'), expect: ['ok'] }; // UTF-8 bytes read as latin-1: mojibake text
        case 3: return { raw: Buffer.from(raw, 'latin1').toString('utf8'), expect: 'any' }; // truncated code units: anything
        case 4: return { raw: Buffer.from(raw, 'utf16le').toString('utf8'), expect: ['MALFORMED'] };
        case 5: return { raw: Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(raw, 'utf16le').swap16()]).toString('latin1'), expect: ['MALFORMED'] };
        default: return { raw: raw.replace('</SNDR>', '\u0000</SNDR>'), expect: 'any' };
      }
    }),
};

const nest = (depth: number, closed: boolean): string => '<A>'.repeat(depth) + (closed ? '</A>'.repeat(depth) : '');

/** Nesting beyond the parser's 100 levels (up to 10,000), closed or not, anywhere; shallow nesting in an ignored element. */
export const deepNesting: Family = {
  name: 'deep nesting (to 10,000 levels)',
  runs: 60,
  soakRuns: 600,
  arb: fc.oneof(
    fc.tuple(fc.oneof(fc.constant(10_000), fc.integer({ min: 101, max: 10_000 })), fc.boolean(), fc.constantFrom('root', 'body', 'meta', 'text'))
      .map(([depth, closed, where]): FuzzCase => {
        const inner = nest(depth, closed);
        const raw = where === 'root' ? inner
          : where === 'body' ? flopXml('ESTT', [['1', `<ESTT>14MAR250930</ESTT>${inner}`]])
          : where === 'meta' ? msgXml({ extra: inner }, '<FLOP><FLID>1</FLID><ESTT/></FLOP>')
          : exss(`x${inner}`);
        return { raw, expect: ['MALFORMED'] };
      }),
    fc.integer({ min: 1, max: 90 }).map((depth): FuzzCase => ({
      raw: flopXml('ESTT', [['1', `<ESTT>14MAR250930</ESTT><X>${nest(depth, true)}</X>`]]), expect: ['ok'],
    })),
  ),
};

/** Message-sized extremes, each kind once per default run (numbers of MiB are the input's size). */
export const HUGE_KINDS = [
  'text', 'remark', 'elements', 'blocks', 'entities', 'attributes', 'attribute-flood', 'cjk', 'truncated', 'bad-time',
] as const;
type HugeKind = (typeof HUGE_KINDS)[number];

/** A decode limit's refusal (docs/domain.md "Decode limits"), or null when `r` is not one. */
const overLimit = (what: RegExp) => (r: DecodeResult): string | null =>
  !r.ok && r.error.startsWith('over a decode limit') && what.test(r.error) ? null : `expected a refusal matching ${what}`;

/** The number of start tags (elements) in `raw`. */
const startTags = (raw: string): number => {
  let n = 0;
  for (let i = raw.indexOf('<'); i !== -1; i = raw.indexOf('<', i + 1)) {
    const c = raw[i + 1];
    if (c !== '/' && c !== '!' && c !== '?') n++;
  }
  return n;
};

/** `count` copies of `unit` in groups of at most `perGroup`, each group in a `<G>` element. */
const grouped = (unit: string, count: number, perGroup: number): string => {
  const groups: string[] = [];
  for (let left = count; left > 0; left -= perGroup) groups.push(`<G>${unit.repeat(Math.min(left, perGroup))}</G>`);
  return groups.join('');
};

function hugeCase(kind: HugeKind, mib: number): FuzzCase {
  const n = Math.floor(mib * MiB);
  switch (kind) {
    case 'text': return { raw: flopXml('ESTT', [['1', `<ESTT>14MAR250930</ESTT><X>${'x'.repeat(n)}</X>`]]), expect: ['ok'] };
    case 'remark': return { raw: exss('r'.repeat(n)), expect: ['ok'], check: (r) => (remarkOf(r)?.length === n ? null : 'remark length') };
    case 'elements': {
      // Grouped under the limit of children per element; past 2,000,000 elements, refused.
      const count = Math.floor(n / 4);
      const raw = flopXml('ESTT', [['1', `<ESTT>14MAR250930</ESTT>${grouped('<X/>', count, MAX_CHILDREN)}`]]);
      return startTags(raw) <= MAX_ELEMENTS ? { raw, expect: ['ok'] } : { raw, expect: ['MALFORMED'], check: overLimit(/elements, more than/) };
    }
    case 'blocks': {
      const block = '<FLOP><FLID>1</FLID><ESTT>14MAR250930</ESTT></FLOP>';
      const count = Math.floor(n / block.length);
      const raw = msgXml({ styp: 'ESTT' }, block.repeat(count));
      // META and the blocks are MSG's children: past 100,000, refused (records per message).
      if (count + 1 > MAX_CHILDREN) return { raw, expect: ['MALFORMED'], check: overLimit(/<MSG> has 100,001 child elements/) };
      return {
        raw, expect: ['ok'],
        check: (r) => (r.ok && r.message.type === 'FLOP' && r.message.ops.length === count ? null : 'block count'),
      };
    }
    case 'entities': return { raw: exss('&amp;'.repeat(n / 5)), expect: ['ok'], check: (r) => (remarkOf(r) === '&'.repeat(n / 5) ? null : 'entity text') };
    case 'attributes': {
      // As many attributes as fit, 64 (the most allowed) per element.
      const element = `<X ${Array.from({ length: MAX_ATTRIBUTES }, (_, i) => `a${i}="1"`).join(' ')}/>`;
      return { raw: flopXml('ESTT', [['1', `<ESTT>14MAR250930</ESTT>${grouped(element, Math.floor(n / element.length), 10_000)}`]]), expect: ['ok'] };
    }
    case 'attribute-flood': {
      // All on one element (the attack that took 292 s at 16 MiB): refused at the 65th. Up to 13
      // characters per attribute (` a1199999="1"`), so the message stays within 16 MiB.
      const count = Math.floor(n / 13.5);
      const raw = flopXml('ESTT', [['1', `<ESTT>14MAR250930</ESTT><X ${Array.from({ length: count }, (_, i) => `a${i}="1"`).join(' ')}/>`]]);
      return { raw, expect: ['MALFORMED'], check: overLimit(/<X> has 65 attributes, more than the 64 allowed per element/) };
    }
    case 'cjk': return { raw: exss('延误'.repeat(n / 6)), expect: ['ok'] }; // 6 UTF-8 bytes per repeat
    case 'truncated': return { raw: flopXml('ESTT', [['1', `<ESTT>14MAR250930</ESTT><X>${'x'.repeat(n)}</X>`]]).slice(0, -3), expect: ['MALFORMED'] };
    case 'bad-time': return { raw: flopXml('ESTT', [['1', `<ESTT>${'9'.repeat(n)}</ESTT>`]]), expect: ['CODEC_ERROR'] };
  }
}

/** Sizes (MiB) per kind in the default run; the soak run draws sizes up to 16 MiB. */
const DEFAULT_MIB: Record<HugeKind, number> = {
  text: 5, remark: 5, elements: 5, blocks: 2, entities: 2, attributes: 2, 'attribute-flood': 5, cjk: 5, truncated: 5, 'bad-time': 1,
};

export const hugeBodies = {
  name: 'huge bodies (to 5 MiB; soak to 16 MiB)',
  runs: 0,
  soakRuns: 20,
  // The body's size: up to 16 MiB less ~10 KiB for the envelope, so a whole message stays within the
  // 16 MiB limit (a drawn 16.0 made a valid message 16 MiB + its envelope, refused as too large).
  arb: fc.tuple(fc.constantFrom(...HUGE_KINDS), fc.double({ min: 0.5, max: 15.99, noNaN: true }))
    .map(([kind, mib]) => hugeCase(kind, mib)),
  /** Run every time, before the generated ones. */
  examples: HUGE_KINDS.map((k) => hugeCase(k, DEFAULT_MIB[k])),
} satisfies Family & { examples: FuzzCase[] };

type Mutation = { op: number; at: number; len: number; text: string; other: number };
const TOKENS = ['<', '>', '/>', '&', '&amp;', '&#0;', '&#x110000;', '&#xD800;', '<!DOCTYPE x>', '<![CDATA[', ']]>', '"', "'", '=',
  '<X>', '</FLOP>', '<FLOP>', '<ESTT/>', '<FLID/>', '<META>', '</META>', '\u0000', '\uFFFE', '\uD800', '延误', '<?xml version="1.0"?>',
  '<!--', '-->', '<MSG>', '</MSG>', ' GTNO="1"', '<SEQN>-1</SEQN>', '<DTTM>20250231000000</DTTM>'];
/** Values that keep the XML well-formed but test the readers: numbers, times, codes at their edges. */
const VALUES = ['', ' ', '-1', '0', '9223372036854775808', '1e400', '31FEB250930', '14MAR252400', '20251301000000', '24:00',
  '延误&amp;备降', '&lt;b&gt;', '&#x5EF6;', 'A'.repeat(300), '0010', '9999', 'TO', 'X', '<![CDATA[<ESTT/>]]>', '<Y/>', '<Y>1</Y>'];

/** Spans of whole elements without children (`<TAG …>text</TAG>` or `<TAG …/>`), for element-level edits. */
const LEAF = /<([A-Z]{4})(\s[^<>]*)?(?:\/>|>[^<]*<\/\1>)/g;

function mutate(xml: string, m: Mutation, corpus: readonly string[]): string {
  const at = m.at % (xml.length + 1);
  // Body leaves only: META edits are MALFORMED at once, and the byte-level edits reach META often enough.
  const bodyStart = xml.indexOf('</META>');
  const leaves = m.op >= 8 ? [...xml.matchAll(LEAF)].filter((l) => l.index > bodyStart) : [];
  const leaf = leaves.length > 0 ? leaves[m.at % leaves.length]! : undefined;
  switch (m.op) {
    case 0: return xml.slice(0, at) + xml.slice(at + m.len);
    case 1: return xml.slice(0, at) + m.text + xml.slice(at);
    case 2: return xml.slice(0, at + m.len) + xml.slice(at, at + m.len) + xml.slice(at + m.len);
    case 3: return xml.slice(0, at);
    case 4: return xml.slice(0, at) + m.text.slice(0, 1) + xml.slice(at + 1);
    case 5: { const o = corpus[m.other % corpus.length]!; const from = m.len % (o.length + 1); return xml.slice(0, at) + o.slice(from, from + 80) + xml.slice(at); }
    case 6: return xml.slice(0, at) + xml.slice(at, at + m.len).toLowerCase() + xml.slice(at + m.len);
    case 7: return xml.replace(/<([A-Z]{4})>/, `<${m.text.replace(/[^A-Za-z]/g, '') || 'Q'}>`);
    // Element-level edits keep the document well-formed, so the META and body readers get the input.
    case 8: return leaf ? splice(xml, leaf, `<${leaf[1]}${leaf[2] ?? ''}>${VALUES[m.other % VALUES.length]}</${leaf[1]}>`) : xml;
    case 9: return leaf ? splice(xml, leaf, '') : xml;
    case 10: return leaf ? splice(xml, leaf, leaf[0] + leaf[0]) : xml;
    default: return leaf ? splice(xml, leaf, `<${leaf[1]}/>`) : xml;
  }
}

const splice = (xml: string, m: RegExpExecArray | RegExpMatchArray, by: string): string =>
  xml.slice(0, m.index!) + by + xml.slice(m.index! + m[0].length);

/** Real messages of the conformance corpus, edited 1–5 times: decoding gets deep before it fails. */
export function mutatedCorpus(): Family {
  const corpus = corpusXmls();
  const mutation = (ops: { min: number; max: number }): fc.Arbitrary<Mutation> => fc.record({
    op: fc.integer(ops),
    at: fc.nat(),
    len: fc.integer({ min: 1, max: 60 }),
    text: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ unit: 'binary', maxLength: 6 })),
    other: fc.nat(),
  });
  // Half byte-level edits (mostly not XML any more), half element-level ones (still XML, wrong content).
  const edits = fc.oneof(
    fc.array(mutation({ min: 0, max: 7 }), { minLength: 1, maxLength: 5 }),
    fc.array(mutation({ min: 8, max: 11 }), { minLength: 1, maxLength: 5 }),
  );
  return {
    name: 'mutated corpus messages',
    runs: 40_000,
    soakRuns: 400_000,
    arb: fc.tuple(fc.constantFrom(...corpus), edits)
      .map(([xml, ms]): FuzzCase => ({ raw: ms.reduce((x, m) => mutate(x, m, corpus), xml), expect: 'any' })),
  };
}

const SOUP = ['<MSG>', '</MSG>', '<META>', '</META>', '<SNDR>AODB</SNDR>', '<SEQN>1</SEQN>', '<DTTM>20250314080000</DTTM>',
  '<TYPE>FLOP</TYPE>', '<TYPE>SCHD</TYPE>', '<STYP>ESTT</STYP>', '<STYP>DNLD</STYP>', '<STYP>GTDT</STYP>', '<FLOP>', '</FLOP>',
  '<FLID>1</FLID>', '<ESTT>14MAR250930</ESTT>', '<ESTT/>', '<SCHD>', '</SCHD>', '<FLTR>', '</FLTR>', '<SODT>14MAR250930</SODT>',
  '<GTDT GTNO="1">', '</GTDT>', '<GATE>G1</GATE>', '<DELY CODE="1" DURA="0010"/>', '&amp;', '&lt;', 'x', ' ', '<RECS>1</RECS>', '<![CDATA[<]]>'];

/** Arbitrary strings and tag soup. */
export const randomText: Family = {
  name: 'random text and tag soup',
  runs: 20_000,
  soakRuns: 200_000,
  arb: fc.oneof(
    fc.string({ unit: 'binary', maxLength: 400 }),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc.array(fc.constantFrom(...SOUP), { maxLength: 60 }).map((ts) => ts.join('')),
    fc.tuple(validFlid, fc.array(fc.constantFrom(...SOUP), { maxLength: 30 })).map(([f, ts]) => `<MSG><META><SNDR>A</SNDR><SEQN>${f}</SEQN>${ts.join('')}`),
  ).map((raw): FuzzCase => ({ raw, expect: 'any' })),
};
