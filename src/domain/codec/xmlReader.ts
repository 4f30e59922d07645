/**
 * The single-pass XML reader behind `parseXml` (see `xmlTree.ts` for what it accepts): checks
 * well-formedness while it builds the element tree, and throws `XmlSyntaxError` at the first fault
 * or `XmlLimitError` at the first limit crossed (`xmlLimits.ts`).
 *
 * Linear in the input (docs/domain.md "Decode limits"): every search starts where the last one
 * ended or stays inside the piece just read (a tag's attribute value, a text run), never reaching
 * ahead to the end of the text from each item of a long series.
 */
import { decimalValue, decodeEntities, hexValue, isXmlChar, predefinedAt } from './xmlEntities.ts';
import {
  count, MAX_ATTRIBUTES, MAX_CHILDREN, MAX_DEPTH, MAX_ELEMENTS, MAX_NAME_LENGTH, OVER_LIMIT, XmlLimitError,
} from './xmlLimits.ts';
import { hashStep, nameAt } from './xmlNames.ts';
import type { XmlElement } from './xmlTree.ts';

const EMPTY_ATTRS: ReadonlyMap<string, string> = new Map();
const NO_CHILDREN: readonly XmlElement[] = Object.freeze([]);

const LT = 60; // <
const GT = 62; // >
const SLASH = 47;
const BANG = 33;
const QUESTION = 63;
const EQUALS = 61;
const SEMI = 59;
const HASH = 35;
const DQUOTE = 34;
const SQUOTE = 39;

const DECLARATION = /^<!(DOCTYPE|ENTITY)/i;

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 9 || c === 13;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isWord = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** A well-formedness fault at offset `at`; `parseXml` turns it into a MALFORMED result. */
export class XmlSyntaxError extends Error {
  override readonly name = 'XmlSyntaxError';

  constructor(readonly problem: string, readonly at: number) {
    super(problem);
  }
}

const isBlank = (t: string): boolean => t.trim() === '';

/**
 * End the pending text run of the element at `top`: entity-decoded and added to its text as it is
 * (the element's text is trimmed only at its ends, when it closes). A blank run before any text is
 * dropped at once: it would be trimmed anyway, and containers (FLTR, FLOP) hold nothing else.
 */
function flush(runs: string[], texts: string[], top: number): void {
  const t = runs[top]!;
  if (texts[top] !== '' || !isBlank(t)) texts[top] += decodeEntities(t);
  runs[top] = '';
}

type MutableElement = { name: string; attrs: ReadonlyMap<string, string>; text: string; children: readonly XmlElement[] };

class Reader {
  private i = 0;
  // The start tag just read (fields rather than a result object: one per element adds up).
  private tagRaw = '';
  private tagName = '';
  private tagAttrs: ReadonlyMap<string, string> = EMPTY_ATTRS;
  private tagEmpty = false;

  constructor(private readonly s: string) {}

  private fail(problem: string, at = this.i): never {
    throw new XmlSyntaxError(problem, at);
  }

  private overLimit(problem: string, at = this.i): never {
    throw new XmlLimitError(`${OVER_LIMIT}: ${problem}`, at);
  }

  /** The name starting at `from` is longer than allowed: refused there, before the rest is read. */
  private longName(from: number): never {
    this.overLimit(`the name '${this.s.slice(from, from + 16)}…' is longer than the ${MAX_NAME_LENGTH} characters allowed per name`, from);
  }

  /** `<!…>` outside a comment or CDATA section: a DTD is refused by name, anything else is not XML. */
  private failDeclaration(otherwise: string): never {
    if (DECLARATION.test(this.s.slice(this.i, this.i + 10))) this.fail('DOCTYPE/ENTITY declarations are refused (no DTDs)');
    this.fail(otherwise);
  }

  document(): XmlElement {
    const s = this.s;
    let root: XmlElement | undefined;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (isSpace(c)) {
        this.i++;
      } else if (c !== LT) {
        this.fail(root === undefined ? `text before the root element` : 'text after the root element');
      } else if (s.charCodeAt(this.i + 1) === QUESTION) {
        this.skipPi();
      } else if (s.charCodeAt(this.i + 1) === BANG) {
        if (!s.startsWith('<!--', this.i)) this.failDeclaration('markup declarations are not allowed outside the root element');
        this.skipComment();
      } else if (root !== undefined) {
        this.fail('more than one root element');
      } else if (s.charCodeAt(this.i + 1) === SLASH) {
        this.fail('end tag without a start tag');
      } else {
        root = this.element();
      }
    }
    if (root === undefined) this.fail('no root element');
    return root;
  }

  /** `<?target …?>`, ignored. The declaration `<?xml …?>` only at the very start. */
  private skipPi(): void {
    const s = this.s;
    const start = this.i;
    let j = start + 2;
    while (j < s.length && !isSpace(s.charCodeAt(j)) && s.charCodeAt(j) !== QUESTION) j++;
    // The target is not checked (the first reader did not): a PI is ignored anyway.
    if (s.slice(start + 2, j) === 'xml' && start !== 0) this.fail('XML declaration allowed only at the start of the document', start);
    if (s.charCodeAt(start + 2) === GT) this.fail("'<?>' is not a processing instruction", start);
    // Quoted parts may not hide a `?>` (readers differ on where such a PI ends).
    for (j = start + 2; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === DQUOTE || c === SQUOTE) {
        const close = s.indexOf(s[j]!, j + 1);
        if (close === -1 || s.slice(j, close).includes('?>')) this.fail('unterminated processing instruction', start);
        j = close;
      } else if (c === QUESTION && s.charCodeAt(j + 1) === GT) {
        this.i = j + 2;
        return;
      }
    }
    this.fail('unterminated processing instruction', start);
  }

  private skipComment(): void {
    const end = this.s.indexOf('-->', this.i + 4);
    if (end === -1) this.fail('unterminated comment');
    this.i = end + 3;
  }

  /**
   * The root element and everything in it, iteratively (depth is bounded, not the JS stack). Per
   * open element: its node, raw name, the text run not yet flushed, its text and children so far.
   */
  private element(): XmlElement {
    const s = this.s;
    const els: MutableElement[] = [];
    const raws: string[] = [];
    const runs: string[] = [];
    const texts: string[] = [];
    // Children so far, per depth: scratch arrays reused for every element at that depth.
    const kids: XmlElement[][] = [];
    const kidCounts: number[] = [];
    let root: XmlElement | undefined;
    let top = -1;
    let elements = 0;
    do {
      if (top >= 0) {
        // Content: text up to the next markup.
        const lt = s.indexOf('<', this.i);
        if (lt === -1) this.fail(`element <${raws[top]!}> is not closed`, s.length);
        if (lt > this.i) {
          const run = s.slice(this.i, lt);
          if (run.includes('&')) this.checkReferences(run, this.i);
          runs[top] += run;
        }
        this.i = lt;
        const c1 = s.charCodeAt(lt + 1);
        if (c1 === SLASH) {
          this.endTag(raws[top]!);
          if (runs[top] !== '') flush(runs, texts, top);
          const el = els[top]!;
          el.text = texts[top]!.trim();
          if (kidCounts[top]! > 0) {
            // An exact-size copy: growing an array child by child left most of it unused.
            el.children = kids[top]!.slice(0, kidCounts[top]);
          }
          top--;
          continue;
        }
        if (c1 === BANG) {
          if (s.startsWith('<!--', lt)) {
            this.skipComment(); // a comment does not end the text run
          } else if (s.startsWith('<![CDATA[', lt)) {
            const end = s.indexOf(']]>', lt + 9);
            if (end === -1) this.fail('unterminated CDATA section');
            if (runs[top] !== '') flush(runs, texts, top);
            texts[top] += s.slice(lt + 9, end);
            this.i = end + 3;
          } else {
            this.failDeclaration('markup declarations are not allowed in content');
          }
          continue;
        }
        if (c1 === QUESTION) {
          if (runs[top] !== '') flush(runs, texts, top);
          this.skipPi();
          continue;
        }
      }
      // A start tag at this.i.
      const tagStart = this.i;
      if (++elements > MAX_ELEMENTS) {
        this.overLimit(`the message has ${count(elements)} elements, more than the ${count(MAX_ELEMENTS)} allowed per message`);
      }
      if (top >= 0 && kidCounts[top] === MAX_CHILDREN) {
        this.overLimit(`<${raws[top]!}> has ${count(MAX_CHILDREN + 1)} child elements, more than the ${count(MAX_CHILDREN)} ` +
          'allowed per element (records or list items per message)');
      }
      this.startTag();
      const el: MutableElement = { name: this.tagName, attrs: this.tagAttrs, text: '', children: NO_CHILDREN };
      if (top < 0) {
        root = el;
      } else {
        if (runs[top] !== '') flush(runs, texts, top);
        kids[top]![kidCounts[top]!++] = el;
      }
      if (!this.tagEmpty) {
        if (top + 1 >= MAX_DEPTH) this.overLimit(`elements nested deeper than ${MAX_DEPTH} levels, the most allowed`, tagStart);
        top++;
        els[top] = el;
        raws[top] = this.tagRaw;
        runs[top] = '';
        texts[top] = '';
        kids[top] ??= [];
        kidCounts[top] = 0;
      }
    } while (top >= 0);
    return root!;
  }

  /** `<name attr="v" …>` or `…/>` at this.i into the tag fields; leaves this.i after it. */
  private startTag(): void {
    const s = this.s;
    const start = this.i;
    let j = start + 1;
    let hash = 0;
    for (; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === GT || c === SLASH || isSpace(c)) break;
      if (j - start > MAX_NAME_LENGTH) this.longName(start + 1);
      hash = hashStep(hash, c);
    }
    const { raw, name } = nameAt(s, start + 1, j, hash);
    if (name === null) this.fail(raw === '' ? "invalid space after '<'" : `invalid tag name '${raw}'`, start);
    let attrs: Map<string, string> | undefined;
    for (;;) {
      const c = s.charCodeAt(j);
      if (c === GT || c === SLASH) {
        if (c === SLASH && s.charCodeAt(j + 1) !== GT) this.fail(`invalid '/' in tag <${raw}>`, j);
        this.tagRaw = raw;
        this.tagName = name;
        this.tagAttrs = attrs ?? EMPTY_ATTRS;
        this.tagEmpty = c === SLASH;
        this.i = c === SLASH ? j + 2 : j + 1;
        return;
      }
      if (!isSpace(c)) this.fail(j >= s.length ? `tag <${raw}> is not closed` : `attributes of <${raw}> need a space before each`, j);
      while (isSpace(s.charCodeAt(j))) j++;
      const a = s.charCodeAt(j);
      if (a === GT || a === SLASH) continue;
      // name = "value"
      const nameStart = j;
      hash = 0;
      for (; j < s.length; j++) {
        const ch = s.charCodeAt(j);
        if (ch === EQUALS || ch === GT || ch === SLASH || isSpace(ch)) break;
        if (j - nameStart >= MAX_NAME_LENGTH) this.longName(nameStart);
        hash = hashStep(hash, ch);
      }
      const { raw: rawAttr, name: attrName } = nameAt(s, nameStart, j, hash);
      if (attrName === null) this.fail(`invalid attribute name '${rawAttr}' in <${raw}>`, nameStart);
      while (isSpace(s.charCodeAt(j))) j++;
      if (s.charCodeAt(j) !== EQUALS) this.fail(`attribute '${rawAttr}' of <${raw}> has no value`, nameStart);
      j++;
      while (isSpace(s.charCodeAt(j))) j++;
      const q = s.charCodeAt(j);
      if (q !== DQUOTE && q !== SQUOTE) this.fail(`attribute '${rawAttr}' of <${raw}> has an unquoted value`, j);
      const close = s.indexOf(s[j]!, j + 1);
      if (close === -1) this.fail(`attribute '${rawAttr}' of <${raw}> has an open quote`, j);
      attrs ??= new Map();
      if (attrs.has(attrName)) this.fail(`attribute '${rawAttr}' of <${raw}> is repeated`, nameStart);
      if (attrs.size === MAX_ATTRIBUTES) {
        this.overLimit(`<${raw}> has ${count(MAX_ATTRIBUTES + 1)} attributes, more than the ${count(MAX_ATTRIBUTES)} allowed per element`, nameStart);
      }
      // Only the value itself is searched: a search from each attribute to the next '<' was
      // quadratic in the number of attributes.
      const value = s.slice(j + 1, close);
      const lt = value.indexOf('<');
      if (lt !== -1) this.fail(`'<' in the value of attribute '${rawAttr}' of <${raw}>`, j + 1 + lt);
      if (value.includes('&')) this.checkReferences(value, j + 1);
      attrs.set(attrName, decodeEntities(value.trim()).trim());
      j = close + 1;
    }
  }

  /** `</raw>` at this.i, closing the element named `raw`. */
  private endTag(raw: string): void {
    const s = this.s;
    const start = this.i;
    let j = start + 2 + raw.length;
    const c = s.charCodeAt(j);
    if (s.startsWith(raw, start + 2) && (c === GT || isSpace(c))) {
      while (isSpace(s.charCodeAt(j))) j++;
      if (s.charCodeAt(j) === GT) {
        this.i = j + 1;
        return;
      }
    }
    j = start + 2;
    while (j < s.length && s.charCodeAt(j) !== GT && !isSpace(s.charCodeAt(j))) j++;
    const found = s.slice(start + 2, j);
    while (isSpace(s.charCodeAt(j))) j++;
    if (s.charCodeAt(j) !== GT) this.fail(`end tag </${found}> is not closed properly`, start);
    this.fail(`expected </${raw}>, found </${found}>`, start);
  }

  /**
   * Every `&` in `text` (found at offset `from`: a text run or an attribute value) must start a
   * reference to one of the five predefined entities (there is no DTD, so no other entity is
   * declared) or to a character XML allows (`&#0;` is not one). Searches stay inside `text`.
   */
  private checkReferences(text: string, from: number): void {
    const to = text.length;
    for (let k = text.indexOf('&'); k !== -1; k = text.indexOf('&', k + 1)) {
      let j = k + 1;
      if (text.charCodeAt(j) === HASH) {
        j++;
        const hex = text.charCodeAt(j) === 120; // x
        if (hex) j++;
        const digitsStart = j;
        // The value is summed as the digits are read (no slice per reference).
        let cp = 0;
        for (; j < to && j - digitsStart < 8; j++) {
          const d = hex ? hexValue(text.charCodeAt(j)) : decimalValue(text.charCodeAt(j));
          if (d === -1) break;
          cp = cp * (hex ? 16 : 10) + d;
        }
        if (j === digitsStart || j >= to || text.charCodeAt(j) !== SEMI) this.fail("'&' does not start a reference", from + k);
        if (!isXmlChar(cp)) this.fail(`character reference '${text.slice(k, j + 1)}' is not an XML character`, from + k);
      } else {
        const nameStart = j;
        while (j < to && j - nameStart < 20 && isWord(text.charCodeAt(j))) j++;
        if (j === nameStart || j >= to || text.charCodeAt(j) !== SEMI) this.fail("'&' does not start a reference", from + k);
        // A predefined name followed by ';' at nameStart is the whole word just read.
        if (predefinedAt(text, nameStart) === -1) this.fail(`undeclared entity '&${text.slice(nameStart, j)};'`, from + k);
      }
      k = j;
    }
  }
}

/** The root element of `text` (BOM stripped, line ends normalized); throws XmlSyntaxError. */
export function readDocument(text: string): XmlElement {
  return new Reader(text).document();
}
