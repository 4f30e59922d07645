/**
 * Adversarial message shapes for the decode-cost test (fuzzCodecLinear.unit.test.ts): each is a
 * piece of markup repeated until the message has the size asked for, so the same shape can be built
 * small and large and the cost of decoding compared. The pieces are the worst cases of every path
 * of the XML reader (docs/domain.md "Decode limits"): attributes, names, elements, nesting,
 * references, comments, CDATA, processing instructions, text runs, and the body readers.
 *
 * A shape that crosses a limit (one element with all the attributes, one huge name) must be refused
 * at once, so it costs next to nothing however large; the others stay under every limit, so the
 * reader goes through the whole text.
 */
import { MAX_ATTRIBUTES, MAX_CHILDREN, MAX_NAME_LENGTH } from '../../../src/domain/codec/xmlLimits.ts';

const META = '<META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20250314080000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META>';
const SCHD_META = META.replace('<TYPE>FLOP</TYPE><STYP>ESTT</STYP>', '<TYPE>SCHD</TYPE><STYP>DNLD</STYP>');

/** Repeated pieces go into groups of this many, so no element has more children than allowed. */
const GROUP = Math.floor(MAX_CHILDREN / 2);

/** Name number `i`: `N` and the digits of `i` in `alphabet`, padded to `length` (a valid XML name). */
const nameOf = (i: number, length: number, alphabet: string): string => {
  let digits = '';
  let n = i;
  do {
    digits += alphabet[n % alphabet.length];
    n = Math.floor(n / alphabet.length);
  } while (n > 0);
  return `N${digits}`.padEnd(length, alphabet[0]);
};

const ALPHABETS = ['abcdefghijklmnopqrstuvwxyz', '名称航班机场延误', 'ABC_.-·'];
const REFERENCES = ['&amp;', '&lt;', '&#x56FD;', '&#20013;', '&quot;'];

/** One repeatable piece of element content; `v` (0..99) varies its details. */
export const PIECES = {
  // Elements under the attribute limit, each with many attributes.
  'attributes': (v) => {
    const value = 'x'.repeat(v % 12);
    return `<E ${Array.from({ length: MAX_ATTRIBUTES }, (_, i) => `${nameOf(i, 1 + (v % 5), ALPHABETS[v % 3]!)}="${value}"`).join(' ')}/>`;
  },
  // Names of the longest length allowed, distinct or repeated.
  'long names': (v) => {
    const name = nameOf(v, MAX_NAME_LENGTH, ALPHABETS[v % 3]!);
    return `<${name} ${name}="1">x</${name}>`;
  },
  'empty elements': (v) => (v % 2 === 0 ? '<E/>' : '<E></E>'),
  'text between elements': (v) => `${'t'.repeat(1 + (v % 4))}<Y/>`,
  'deep nesting': (v) => {
    const depth = 10 + (v % 88); // under MSG, FLOP and a group: 100 levels at most
    return '<A>'.repeat(depth) + 'x' + '</A>'.repeat(depth);
  },
  'references in text': (v) => `<T>${REFERENCES[v % REFERENCES.length]!.repeat(50 + v)}</T>`,
  'references in attributes': (v) => `<T a="${REFERENCES[v % REFERENCES.length]!.repeat(50 + v)}"/>`,
  'comments in text': (v) => `${v % 2 === 0 ? 'a' : '&lt;'}<!--${'-x'.repeat(v % 5)}-->`,
  'cdata sections': (v) => `<![CDATA[${']x'.repeat(v % 7)}a]]>`,
  'processing instructions': (v) => `a<?p${' "x?"'.repeat(v % 5)}?>`,
} satisfies Record<string, (v: number) => string>;

export type PieceName = keyof typeof PIECES;

/** Shapes that are one thing, huge: built from a prefix, a filler and a suffix. */
export const WHOLE = {
  // The 640,000-attribute attack: refused at the first attribute over the limit.
  'attribute flood': { head: '<MSG', unit: (i: number) => ` ${nameOf(i, 1, ALPHABETS[0]!)}=""`, tail: '><NOMETA/></MSG>' },
  // One name as long as the message: refused once it is longer than allowed.
  'one long name': { head: `<MSG>${META}<`, unit: () => 'N', tail: '/></MSG>' },
  'one comment': { head: `<MSG>${META}<!--`, unit: () => '-x', tail: '--></MSG>' },
  'one cdata section': { head: `<MSG>${META}<X><![CDATA[`, unit: () => ']x', tail: ']]></X></MSG>' },
  'one text': { head: `<MSG>${META}<X>`, unit: () => 'x&amp;', tail: '</X></MSG>' },
  'one attribute value': { head: `<MSG>${META}<X a="`, unit: () => 'x&lt;', tail: '"/></MSG>' },
  'one open attribute value': { head: `<MSG>${META}<X a="`, unit: () => 'x', tail: '' },
  'one processing instruction': { head: `<MSG>${META}<?p`, unit: () => ' "x"', tail: '?></MSG>' },
  // A delay list in one FLOP block: the list reader (uniqueness, order) over many items.
  'list items': {
    head: `<MSG>${META.replace('ESTT', 'DELY')}<FLOP><FLID>1</FLID>`,
    unit: (i: number) => `<DELY CODE="C${i}" STRT="14MAR250930" DURA="0010"/>`,
    tail: '</FLOP></MSG>',
  },
  // Minimal plan records: the body readers over many FLTR (and, past the limit, refused).
  'plan records': {
    head: `<MSG>${SCHD_META}<SCHD>`,
    unit: (i: number) => `<FLTR><FLID>${100000 + i}</FLID><SODT>14MAR250930</SODT></FLTR>`,
    tail: '</SCHD></MSG>',
  },
} satisfies Record<string, { head: string; unit: (i: number) => string; tail: string }>;

export type WholeName = keyof typeof WHOLE;

/** What to build: a whole shape, or a mix of pieces (with their variants) repeated. */
export type ShapeSpec =
  | { readonly whole: WholeName }
  | { readonly pieces: readonly (readonly [PieceName, number])[] };

export const describeShape = (spec: ShapeSpec): string =>
  'whole' in spec ? spec.whole : spec.pieces.map(([p, v]) => `${p} #${v}`).join(' + ');

/** The message of about `chars` characters for `spec`. */
export function buildShape(spec: ShapeSpec, chars: number): string {
  if ('whole' in spec) {
    const { head, unit, tail } = WHOLE[spec.whole];
    const parts: string[] = [head];
    let size = head.length + tail.length;
    for (let i = 0; ; i++) {
      const u = unit(i);
      if (size + u.length > chars) break;
      parts.push(u);
      size += u.length;
    }
    parts.push(tail);
    return parts.join('');
  }
  const unit = spec.pieces.map(([p, v]) => PIECES[p](v)).join('');
  const head = `<MSG>${META}<FLOP><FLID>1</FLID><ESTT>14MAR250930</ESTT>`;
  const tail = '</FLOP></MSG>';
  // Each group is `<G>` + up to GROUP units + `</G>`; a unit may hold several elements, so the
  // groups are sized by the elements they hold.
  const perUnit = Math.max(1, (unit.match(/<[^/!?]/g) ?? []).length);
  const perGroup = Math.max(1, Math.floor(GROUP / perUnit));
  const units = Math.max(1, Math.floor((chars - head.length - tail.length) / (unit.length + 7 / perGroup)));
  const groups: string[] = [];
  for (let left = units; left > 0; left -= perGroup) groups.push(`<G>${unit.repeat(Math.min(left, perGroup))}</G>`);
  return head + groups.join('') + tail;
}
