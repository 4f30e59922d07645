/**
 * Writing an AIDX element tree in the order its shape gives (aidxShape.ts). The tree names each
 * element's children by name; the writer walks the shape's sequence, so element order is the
 * shape's whatever order the tree was built in. Every text and attribute must match its shape's
 * format: the builder (aidxMessage.ts) leaves out what does not, so a failure here is a bug.
 */
import { AIDX_NAMESPACE, type ElementShape } from './aidxShape.ts';

const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';

export interface AidxNode {
  readonly attrs?: Readonly<Record<string, string | undefined>>;
  readonly text?: string;
  /** Sent as `xsi:nil="true"` (a value cleared); only where the shape is nillable. */
  readonly nil?: true;
  readonly kids?: Readonly<Record<string, readonly AidxNode[] | undefined>>;
}

export function renderAidx(shape: ElementShape, root: AidxNode): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${renderNode(shape, root, ` xmlns="${AIDX_NAMESPACE}" xmlns:xsi="${XSI_NAMESPACE}"`)}`;
}

function renderNode(shape: ElementShape, node: AidxNode, extra = ''): string {
  let attrs = extra;
  for (const a of shape.attrs) {
    const v = node.attrs?.[a.name];
    if (v === undefined) {
      if (a.required) throw new Error(`AIDX: ${shape.name}@${a.name} is required`);
      continue;
    }
    if (!a.format.pattern.test(v)) throw new Error(`AIDX: ${shape.name}@${a.name} is not a ${a.format.name}: ${v}`);
    attrs += ` ${a.name}="${escapeXml(v)}"`;
  }
  for (const k of Object.keys(node.attrs ?? {})) {
    if (!shape.attrs.some((a) => a.name === k)) throw new Error(`AIDX: ${shape.name} has no attribute ${k}`);
  }
  let body = '';
  if (node.nil) {
    if (!shape.nillable || node.text !== undefined || node.kids !== undefined) throw new Error(`AIDX: ${shape.name} cannot be nil here`);
    return `<${shape.name}${attrs} xsi:nil="true"/>`;
  }
  if (node.text !== undefined) {
    if (!shape.text?.pattern.test(node.text)) throw new Error(`AIDX: ${shape.name} text is not a ${shape.text?.name ?? 'text'}: ${node.text}`);
    body = escapeXml(node.text);
  }
  for (const k of Object.keys(node.kids ?? {})) {
    if (!shape.children.some((c) => c.name === k)) throw new Error(`AIDX: ${shape.name} has no child ${k}`);
  }
  for (const child of shape.children) {
    const list = node.kids?.[child.name] ?? [];
    if (list.length < child.min || list.length > child.max) {
      throw new Error(`AIDX: ${shape.name} holds ${list.length} ${child.name}, allowed ${child.min}..${child.max}`);
    }
    for (const n of list) body += renderNode(child, n);
  }
  return body === '' ? `<${shape.name}${attrs}/>` : `<${shape.name}${attrs}>${body}</${shape.name}>`;
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}
