/**
 * Reference-data bodies (reference.md): the records sit directly under MSG, each an element
 * named after TYPE (`<AIRL>…</AIRL>`); `RECS` is a hint only. Every element of a record is kept
 * (see reference/record.ts). A record without its key is kept as keyless (the decision lists and
 * skips it). Nothing here can fail on the records' content.
 */
import type { Meta, ReferenceMessage, ReferenceRecordIn } from '../message.ts';
import type { ReferenceKindInfo, ReferenceStyp } from '../reference/kinds.ts';
import { keyOf, patchFields, recordFields } from '../reference/record.ts';
import { childrenNamed, type XmlElement } from './xmlTree.ts';

/** RECS as a number, null when absent or not a whole number (it is only a hint). */
export function declaredRecordsOf(parent: XmlElement): number | null {
  const recs = childrenNamed(parent, 'RECS');
  if (recs.length !== 1) return null;
  const text = recs[0]!.text;
  return /^\d{1,9}$/.test(text) ? Number(text) : null;
}

export function decodeReferenceBody(msg: XmlElement, kind: ReferenceKindInfo, styp: ReferenceStyp, meta: Meta): ReferenceMessage {
  const records: ReferenceRecordIn[] = childrenNamed(msg, kind.kind).map((el, i) => {
    const fields = recordFields(el, kind);
    return { index: i + 1, code: keyOf(fields, kind), fields, patch: patchFields(el, kind) };
  });
  return { type: 'REFERENCE', kind: kind.kind, styp, meta, declaredRecords: declaredRecordsOf(msg), records };
}
