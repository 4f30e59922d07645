/**
 * META from the top of a message without decoding the message (docs/security.md §7, "Reads never
 * decode"): the read API (for a message not decided yet) and the compat entry's sender check read
 * at most `META_PREFIX_CHARS` characters, find `MSG/META` there in one forward pass, and check it
 * with the codec's own `decodeMeta`. Every envelope puts META first (test/corpus), so the prefix
 * holds it; a META past the prefix is "no META" here.
 *
 * Linear by construction: every search starts where the last one ended and the position only
 * moves forward, so a hostile prefix (an attribute flood, an unclosed comment) costs one pass. It
 * is stricter than the parser, never laxer on a well-formed text: anything it does not expect
 * (a DOCTYPE, `<` in an attribute value, a mismatched end tag) is "no META". On a text the parser
 * accepts it sees the parser's first `MSG/META`; the parser refuses a second one, so a sender this
 * scan reads is the one decode would read, or the message is MALFORMED and binds no identity.
 * Never throws.
 */
import type { Meta } from '../message.ts';
import { decodeMeta } from './meta.ts';
import { decodeEntities } from './xmlEntities.ts';
import type { XmlElement } from './xmlTree.ts';

/** How much of a message the META scan reads (characters): META sits in the first few hundred. */
export const META_PREFIX_CHARS = 64 * 1024;

const NO_ATTRS: ReadonlyMap<string, string> = new Map();
const LINE_END = /\r\n?/g;

interface Open {
  readonly name: string;
  readonly pieces: string[];
  readonly children: XmlElement[];
}

/** META of `text`, read from its first `META_PREFIX_CHARS` characters only; null when there is none there. */
export function metaFromPrefix(text: string, tz: string): Meta | null {
  const prefix = text.length > META_PREFIX_CHARS ? text.slice(0, META_PREFIX_CHARS) : text;
  const meta = scanMeta(prefix);
  return meta === null ? null : checkedMeta(meta, tz);
}

/**
 * META from values already read (the `inbox_message` META columns: `{ SNDR, SEQN, DTTM, TYPE,
 * STYP, RCVR, MGID, RMID }`, null = absent), checked and normalized as decode does; null if invalid.
 */
export function metaFromFields(fields: Readonly<Record<string, string | null>>, tz: string): Meta | null {
  const children: XmlElement[] = [];
  for (const [name, text] of Object.entries(fields)) if (text !== null) children.push({ name, attrs: NO_ATTRS, text, children: [] });
  return checkedMeta({ name: 'META', attrs: NO_ATTRS, text: '', children }, tz);
}

function checkedMeta(meta: XmlElement, tz: string): Meta | null {
  try {
    const r = decodeMeta({ name: 'MSG', attrs: NO_ATTRS, text: '', children: [meta] }, tz);
    return r.ok ? r.meta : null;
  } catch {
    return null; // e.g. an unknown zone: not a META this scan can vouch for
  }
}

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 9 || c === 13;

/** End of the name starting at `i` (the first character that cannot be in a name). */
function nameEnd(s: string, i: number): number {
  let j = i;
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (isSpace(c) || c === 0x3e /* > */ || c === 0x2f /* / */ || c === 0x3d /* = */ || c === 0x3c /* < */ || c === 0x22 || c === 0x27) break;
  }
  return j;
}

function skipSpace(s: string, i: number): number {
  let j = i;
  while (j < s.length && isSpace(s.charCodeAt(j))) j++;
  return j;
}

/** The start tag at `i` (`s[i]` is `<`): its name, where it ends, whether it is `<x/>`; null if not one. */
function startTag(s: string, i: number): { name: string; end: number; empty: boolean } | null {
  const ne = nameEnd(s, i + 1);
  if (ne === i + 1) return null;
  const name = s.slice(i + 1, ne);
  let j = ne;
  for (;;) {
    const k = skipSpace(s, j);
    const spaced = k > j;
    j = k;
    if (j >= s.length) return null;
    const c = s.charCodeAt(j);
    if (c === 0x3e) return { name, end: j + 1, empty: false };
    if (c === 0x2f) return s.charCodeAt(j + 1) === 0x3e ? { name, end: j + 2, empty: true } : null;
    if (!spaced) return null;
    const an = nameEnd(s, j);
    if (an === j) return null;
    j = skipSpace(s, an);
    if (s.charCodeAt(j) !== 0x3d) return null;
    j = skipSpace(s, j + 1);
    const q = s.charCodeAt(j);
    if (q !== 0x22 && q !== 0x27) return null;
    const close = s.indexOf(q === 0x22 ? '"' : "'", j + 1);
    if (close < 0) return null;
    for (let k = j + 1; k < close; k++) if (s.charCodeAt(k) === 0x3c) return null;
    j = close + 1;
  }
}

/** Past the markup at `i` that is not an element (`<!--`, `<![CDATA[`, `<?`), or -1; CDATA text goes to `cdata`. */
function skipMarkup(s: string, i: number, cdata?: string[]): number {
  if (s.startsWith('<!--', i)) {
    const e = s.indexOf('-->', i + 4);
    return e < 0 ? -1 : e + 3;
  }
  if (s.startsWith('<![CDATA[', i)) {
    const e = s.indexOf(']]>', i + 9);
    if (e < 0) return -1;
    cdata?.push(s.slice(i + 9, e).replace(LINE_END, '\n'));
    return e + 3;
  }
  if (s.startsWith('<?', i)) {
    const e = s.indexOf('?>', i + 2);
    return e < 0 ? -1 : e + 2;
  }
  return -1; // a DOCTYPE, or anything else the parser would refuse
}

/** The first `META` child of the root `MSG` in `s`, as the parser would build it; null if not all there. */
function scanMeta(s: string): XmlElement | null {
  let i = s.charCodeAt(0) === 0xfeff ? 1 : 0;
  // Prolog: space, the declaration, comments, processing instructions.
  for (;;) {
    i = skipSpace(s, i);
    if (s.charCodeAt(i) !== 0x3c) return null;
    if (s.charCodeAt(i + 1) !== 0x21 && s.charCodeAt(i + 1) !== 0x3f) break;
    if (s.startsWith('<![CDATA[', i)) return null;
    i = skipMarkup(s, i);
    if (i < 0) return null;
  }
  const root = startTag(s, i);
  if (root === null || root.name !== 'MSG' || root.empty) return null;
  i = root.end;
  // Inside MSG: skip what comes before META (text, markup, whole elements), then build META.
  const stack: Open[] = [];
  for (;;) {
    const lt = s.indexOf('<', i);
    if (lt < 0) return null;
    const inMeta = stack.length > 0;
    if (inMeta) stack[stack.length - 1]!.pieces.push(decodeEntities(s.slice(i, lt).replace(LINE_END, '\n')));
    if (s.charCodeAt(lt + 1) === 0x21 || s.charCodeAt(lt + 1) === 0x3f) {
      i = skipMarkup(s, lt, inMeta ? stack[stack.length - 1]!.pieces : undefined);
      if (i < 0) return null;
      continue;
    }
    if (s.charCodeAt(lt + 1) === 0x2f) {
      const ne = nameEnd(s, lt + 2);
      const gt = skipSpace(s, ne);
      if (s.charCodeAt(gt) !== 0x3e) return null;
      i = gt + 1;
      const open = stack.pop();
      if (open === undefined) return null; // MSG closed before any META (elements before META are skipped whole)
      if (open.name !== s.slice(lt + 2, ne)) return null;
      const el: XmlElement = { name: open.name, attrs: NO_ATTRS, text: open.pieces.join('').trim(), children: open.children };
      if (stack.length === 0) return el.name === 'META' ? el : null;
      stack[stack.length - 1]!.children.push(el);
      continue;
    }
    const tag = startTag(s, lt);
    if (tag === null) return null;
    i = tag.end;
    if (!inMeta) {
      if (tag.name !== 'META') {
        // An element before META: skip it whole (its own end tag, counting nesting of its name).
        if (!tag.empty) {
          i = skipElement(s, i, tag.name);
          if (i < 0) return null;
        }
        continue;
      }
      if (tag.empty) return { name: 'META', attrs: NO_ATTRS, text: '', children: [] };
    }
    if (tag.empty) stack[stack.length - 1]!.children.push({ name: tag.name, attrs: NO_ATTRS, text: '', children: [] });
    else stack.push({ name: tag.name, pieces: [], children: [] });
  }
}

/** Past the end tag that closes the element whose content starts at `i`, or -1; one forward pass. */
function skipElement(s: string, from: number, name: string): number {
  let i = from;
  let depth = 1;
  for (;;) {
    const lt = s.indexOf('<', i);
    if (lt < 0) return -1;
    const next = s.charCodeAt(lt + 1);
    if (next === 0x21 || next === 0x3f) {
      i = skipMarkup(s, lt);
      if (i < 0) return -1;
      continue;
    }
    if (next === 0x2f) {
      const gt = s.indexOf('>', lt);
      if (gt < 0) return -1;
      i = gt + 1;
      if (--depth === 0) return s.slice(lt + 2, gt).trimEnd() === name ? i : -1;
      continue;
    }
    const tag = startTag(s, lt);
    if (tag === null) return -1;
    i = tag.end;
    if (!tag.empty) depth++;
  }
}
