/**
 * Checks an AIDX document against our description of the schema (src/domain/aidxOut/aidxShape.ts)
 * by parsing it again — independent of how the serializer orders its output: every element's children
 * follow the shape's sequence, occur within min..max, carry their required attributes, no unknown
 * element or attribute, every text and attribute matches its format. Returns the problems found.
 */
import { XMLParser } from 'fast-xml-parser';
import { AIDX_NAMESPACE, type ElementShape } from '../../../../src/domain/aidxOut/aidxShape.ts';

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false, trimValues: false });

export function checkAidx(xml: string, shape: ElementShape): string[] {
  const doc = parser.parse(xml) as Ordered[];
  const roots = doc.filter((n) => !('?xml' in n));
  if (roots.length !== 1) return [`expected one root element, found ${roots.length}`];
  const root = roots[0]!;
  const problems: string[] = [];
  const name = elementName(root);
  if (name !== shape.name) return [`root is ${name}, expected ${shape.name}`];
  if (root[':@']?.xmlns !== AIDX_NAMESPACE) problems.push(`root namespace is ${root[':@']?.xmlns}, expected ${AIDX_NAMESPACE}`);
  checkElement(root, shape, shape.name, problems, ['xmlns', 'xmlns:xsi']);
  return problems;
}

function elementName(n: Ordered): string {
  return Object.keys(n).find((k) => k !== ':@')!;
}

function checkElement(node: Ordered, shape: ElementShape, where: string, problems: string[], allowedAttrs: string[] = []): void {
  const attrs = node[':@'] ?? {};
  for (const a of shape.attrs) {
    const v = attrs[a.name];
    if (v === undefined) {
      if (a.required) problems.push(`${where}: missing required attribute ${a.name}`);
    } else if (!a.format.pattern.test(v)) problems.push(`${where}@${a.name}: "${v}" is not a ${a.format.name}`);
  }
  for (const k of Object.keys(attrs)) {
    if (!shape.attrs.some((a) => a.name === k) && !allowedAttrs.includes(k) && k !== 'xsi:nil') problems.push(`${where}: unknown attribute ${k}`);
  }
  const content = node[shape.name] as Ordered[];
  if (attrs['xsi:nil'] !== undefined) {
    // Nil: only where the schema allows it, "true", and empty.
    if (!shape.nillable) problems.push(`${where}: xsi:nil on an element that is not nillable`);
    if (attrs['xsi:nil'] !== 'true') problems.push(`${where}: xsi:nil="${attrs['xsi:nil']}"`);
    if (content.length > 0) problems.push(`${where}: a nil element with content`);
    return;
  }
  const texts = content.filter((c) => '#text' in c).map((c) => String(c['#text']));
  const elements = content.filter((c) => !('#text' in c));
  if (shape.text) {
    const text = texts.join('');
    if (!shape.text.pattern.test(text)) problems.push(`${where}: text "${text}" is not a ${shape.text.name}`);
  } else if (texts.join('').trim() !== '') problems.push(`${where}: text where only elements are allowed`);
  // Sequence: walk the children, each must be the current shape child or a later one.
  let at = 0;
  const counts = new Map<string, number>();
  for (const child of elements) {
    const name = elementName(child);
    const idx = shape.children.findIndex((c) => c.name === name);
    if (idx < 0) {
      problems.push(`${where}: unknown element ${name}`);
      continue;
    }
    if (idx < at) problems.push(`${where}: ${name} out of order (after ${shape.children[at]!.name})`);
    at = Math.max(at, idx);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    checkElement(child, shape.children[idx]!, `${where}/${name}`, problems);
  }
  for (const c of shape.children) {
    const n = counts.get(c.name) ?? 0;
    if (n < c.min || n > c.max) problems.push(`${where}: ${n} × ${c.name}, allowed ${c.min}..${c.max === Infinity ? 'n' : c.max}`);
  }
}
