/**
 * FLOP body: one or more `<FLOP><FLID/><FFID/> …subtype elements… </FLOP>` blocks.
 *
 * Only the elements of the message's subtype are read; other elements are ignored (kept in the
 * raw message). The subtype's element must be present — a FLOP/ESTT without ESTT is a shape
 * error, since "clear" is spelled as an empty element.
 */
import { ABSENT_CLEARS, FLOP_FIELD_SUBTYPES, isFlopFieldStyp, isFlopListStyp, type FlopStyp } from '../catalogue.ts';
import type { FieldPatch, FlopAction, FlopMessage, FlopOp, Meta } from '../message.ts';
import { readFieldElements, VALUE_ELEMENTS, type FieldElement } from './fieldElements.ts';
import { readList } from './listElements.ts';
import { asCode, at, fail, readChild, rootContext, toFlid, type ReadContext } from './readers.ts';
import type { XmlElement } from './xmlTree.ts';

function readAction(block: XmlElement, styp: FlopStyp, ctx: ReadContext): FlopAction {
  if (isFlopFieldStyp(styp)) {
    const elements = FLOP_FIELD_SUBTYPES[styp] as readonly FieldElement[];
    const fields: FieldPatch = {};
    const present = readFieldElements(block, elements, ctx, fields);
    if (present.size === 0) {
      // TOBT: a TOBT message without the element clears the target off-block time (interface.md).
      if (ABSENT_CLEARS.has(styp)) {
        for (const e of elements) (fields as Record<string, null>)[VALUE_ELEMENTS[e as keyof typeof VALUE_ELEMENTS][0]] = null;
      } else {
        fail(ctx, styp, `missing (a FLOP/${styp} block needs ${elements.join('/')})`);
      }
    }
    return { kind: 'set-fields', fields };
  }
  if (isFlopListStyp(styp)) {
    const r = readList(block, styp, ctx);
    if (r === undefined) fail(ctx, styp, `missing (a FLOP/${styp} block needs at least one ${styp}; <${styp}/> clears)`);
    return { kind: 'replace-list', ...r };
  }
  return { kind: 'delete' };
}

function readOp(block: XmlElement, styp: FlopStyp, ctx: ReadContext): FlopOp {
  const flid = readChild(block, 'FLID', ctx, toFlid);
  if (flid === undefined || flid === null) fail(ctx, 'FLID', 'missing');
  const ffid = readChild(block, 'FFID', ctx, asCode) ?? null;
  return { flid, ffid, action: readAction(block, styp, ctx) };
}

export function decodeFlopBody(msg: XmlElement, styp: FlopStyp, meta: Meta, tz: string): FlopMessage {
  const ctx = rootContext(tz);
  // With TYPE=FDEL the blocks may also be spelled <FDEL><FLID/>…</FDEL>.
  const blockNames = styp === 'FDEL' ? ['FLOP', 'FDEL'] : ['FLOP'];
  const blocks = msg.children.filter((c) => blockNames.includes(c.name));
  if (blocks.length === 0) fail(ctx, 'FLOP', 'missing body');
  const ops = blocks.map((b, i) => readOp(b, styp, at(ctx, b.name, i + 1)));
  return { type: 'FLOP', styp, meta, ops };
}
