/**
 * Raw text → a small, ordered element tree. Only well-formed XML with exactly one root element
 * and no DOCTYPE/ENTITY declarations gets through (the rest is the caller's MALFORMED).
 *
 * One hand-written pass (`xmlReader.ts`) checks well-formedness and builds the tree; the first
 * reader (fast-xml-parser's XMLValidator, then its parser) cost ~10× as much on a 3,000-flight
 * plan. It builds the same element structure as the first reader for every text both accept; it
 * is stricter on non-XML that reader let through (`<!FOO>` or `<![X[` in content, CDATA or text
 * after the root, `</A/>`, `<?>`, U+FEFF inside a name or end tag, `<` in an attribute value,
 * undeclared entities, references to non-characters), and it keeps the whitespace between text
 * pieces that the first reader trimmed away (`Gate <![CDATA[A&B]]> closed` is `Gate A&B closed`).
 * `test/domain/xmlTree.unit.test.ts` checks this against the first reader, kept as a test oracle.
 *
 * What it accepts: an optional `<?xml …?>` declaration at the very start; comments and processing
 * instructions (ignored); one root element; elements with quoted, unique attributes; references
 * (in text and attribute values) to the five predefined entities and to characters XML allows
 * (`&#20013;`, `&#x56FD;`). Refused as not well-formed: `<` inside an attribute value, an `&` that
 * does not start such a reference (`AT&T`, the undeclared `&nbsp;`, `&#0;`), and any DOCTYPE or
 * ENTITY declaration (no DTDs, ever) — the same characters inside CDATA or a comment are just text.
 * Line ends are normalized to `\n`.
 *
 * Limits (`xmlLimits.ts`, docs/domain.md "Decode limits"): names of 64 characters, 64 attributes
 * per element, 100,000 child elements per element, 2,000,000 elements per message, 101 levels of
 * nesting. A text over one is refused as soon as the reader crosses it, with a reason that names
 * the limit and the count (`over a decode limit: <MSG> has 65 attributes, …`).
 *
 * Text (interface.md): the whole text content of the element — text runs (entity-decoded) and
 * CDATA sections (verbatim) joined with the whitespace between them; only the ends are trimmed.
 * There is no DTD, so no user-defined or external entity can exist.
 */
import { XmlLimitError } from './xmlLimits.ts';
import { readDocument, XmlSyntaxError } from './xmlReader.ts';

export interface XmlElement {
  name: string;
  attrs: ReadonlyMap<string, string>;
  /** Concatenated direct text content, trimmed ('' when none). */
  text: string;
  children: readonly XmlElement[];
}

export type XmlParseResult = { ok: true; root: XmlElement } | { ok: false; error: string };

const LINE_END = /\r\n?/g;

/** `line L, col C` of offset `at`, counted in place (splitting 16 MiB of line ends made 16 M strings). */
function lineCol(text: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  for (let nl = text.indexOf('\n'); nl !== -1 && nl < at; nl = text.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  return `line ${line}, col ${at - lineStart + 1}`;
}

/** Parse `raw`; never throws. */
export function parseXml(raw: string): XmlParseResult {
  let text = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  if (text.includes('\r')) text = text.replace(LINE_END, '\n');
  try {
    return { ok: true, root: readDocument(text) };
  } catch (err) {
    if (err instanceof XmlSyntaxError) {
      return { ok: false, error: `not well-formed XML: ${err.problem} (${lineCol(text, err.at)})` };
    }
    if (err instanceof XmlLimitError) return { ok: false, error: `${err.problem} (${lineCol(text, err.at)})` };
    // Not an input fault we know of (e.g. out of memory on a huge text): still this text's problem.
    return { ok: false, error: `not parseable XML: ${err instanceof Error ? err.message : String(err)}` };
  }
}

const NO_CHILDREN: readonly XmlElement[] = Object.freeze([]);

/** Direct children named `name`. */
export function childrenNamed(el: XmlElement, name: string): readonly XmlElement[] {
  let out: XmlElement[] | undefined;
  for (const c of el.children) {
    if (c.name === name) (out ??= []).push(c);
  }
  return out ?? NO_CHILDREN;
}

/** An element with no text, no attributes and no children: the catalogue's "clear" marker. */
export function isEmptyElement(el: XmlElement): boolean {
  return el.text === '' && el.attrs.size === 0 && el.children.length === 0;
}
