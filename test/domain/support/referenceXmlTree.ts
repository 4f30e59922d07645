/**
 * Test oracle: the codec's first XML reader (fast-xml-parser's XMLValidator, then its
 * `preserveOrder` parser), kept verbatim so `xmlTree.unit.test.ts` can check that the hand-written
 * single-pass reader in `src/domain/codec/xmlTree.ts` builds the same tree for every document this
 * one accepts, and never accepts a text this one refuses.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { XmlElement, XmlParseResult } from '../../../src/domain/codec/xmlTree.ts';

// Names that fast-xml-parser refuses outright (prototype pollution guard). We rename them instead,
// so an odd extra element in a body stays an ignorable unknown element, not a parse failure.
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const safeName = (name: string): string => (RESERVED_NAMES.has(name) ? `_reserved_${name}` : name);

const ATTRS_KEY = ':@';
const TEXT_KEY = '#text';
const CDATA_KEY = '#cdata';

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));/g;

function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name !== undefined) return PREDEFINED[name] ?? whole;
    const cp = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? '', 10);
    return isXmlChar(cp) ? String.fromCodePoint(cp) : whole;
  });
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false, // decoded by decodeEntities (the parser's own HTML table is slow)
  htmlEntities: false,
  cdataPropName: CDATA_KEY,
  ignoreDeclaration: true,
  ignorePiTags: true,
  transformTagName: safeName,
  transformAttributeName: safeName,
});

type OrderedNode = Record<string, unknown>;

function isRecord(v: unknown): v is OrderedNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toElements(nodes: unknown): { elements: XmlElement[]; text: string } {
  const elements: XmlElement[] = [];
  let text = '';
  if (!Array.isArray(nodes)) return { elements, text };
  for (const node of nodes) {
    if (!isRecord(node)) continue;
    if (TEXT_KEY in node) {
      text += decodeEntities(String(node[TEXT_KEY]));
      continue;
    }
    if (CDATA_KEY in node) {
      const inner = node[CDATA_KEY];
      if (Array.isArray(inner)) for (const t of inner) if (isRecord(t)) text += String(t[TEXT_KEY] ?? '');
      continue;
    }
    const name = Object.keys(node).find((k) => k !== ATTRS_KEY);
    if (name === undefined) continue;
    const attrs = new Map<string, string>();
    const rawAttrs = node[ATTRS_KEY];
    if (isRecord(rawAttrs)) {
      for (const [k, v] of Object.entries(rawAttrs)) attrs.set(k, decodeEntities(String(v)).trim());
    }
    const inner = toElements(node[name]);
    elements.push({ name, attrs, text: inner.text.trim(), children: inner.elements });
  }
  return { elements, text };
}

/** Parse `raw`; never throws. */
export function referenceParseXml(raw: string): XmlParseResult {
  try {
    const text = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
    if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
      return { ok: false, error: 'DOCTYPE/ENTITY declarations are refused' };
    }
    const valid = XMLValidator.validate(text);
    if (valid !== true) {
      return { ok: false, error: `not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, col ${valid.err.col})` };
    }
    const { elements, text: stray } = toElements(parser.parse(text));
    if (elements.length !== 1 || stray.trim() !== '') {
      return { ok: false, error: `expected exactly one root element, found ${elements.length}` };
    }
    return { ok: true, root: elements[0]! };
  } catch (err) {
    // The parser's own refusals (nesting depth, reserved names we did not foresee, …) are input faults.
    return { ok: false, error: `not parseable XML: ${err instanceof Error ? err.message : String(err)}` };
  }
}
