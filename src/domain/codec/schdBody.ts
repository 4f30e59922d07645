/**
 * SCHD body: `<SCHD><RECS>n</RECS><FLTR>…</FLTR>…</SCHD>`, each FLTR a full flight record.
 *
 * Within a record, as everywhere: an absent element (scalar or list) is an absent key, an empty
 * one is a clear. FLID and SODT are required (a record must identify its flight and day).
 */
import type { SchdStyp } from '../catalogue.ts';
import type { FieldPatch, FlightRecord, ListPatch, Meta, SchdMessage } from '../message.ts';
import { localDateOf } from '../time.ts';
import { ALL_FIELD_ELEMENTS, readFieldElements } from './fieldElements.ts';
import { assignList, LIST_ELEMENTS, readList } from './listElements.ts';
import { at, fail, readChild, rootContext, single, toFlid, toInt, type ReadContext } from './readers.ts';
import { childrenNamed, type XmlElement } from './xmlTree.ts';

function readRecord(fltr: XmlElement, ctx: ReadContext): FlightRecord {
  const flid = readChild(fltr, 'FLID', ctx, toFlid);
  if (flid === undefined || flid === null) fail(ctx, 'FLID', 'missing');
  const fields: FieldPatch = {};
  readFieldElements(fltr, ALL_FIELD_ELEMENTS, ctx, fields);
  const scheduledTime = fields.scheduledTime;
  if (scheduledTime === undefined || scheduledTime === null) fail(ctx, 'SODT', 'missing (required in a FLTR record)');
  const lists: ListPatch = {};
  for (const element of LIST_ELEMENTS) {
    const r = readList(fltr, element, ctx);
    if (r) assignList(lists, r);
  }
  return { flid, scheduledTime, operationDay: localDateOf(scheduledTime, ctx.tz), fields, lists };
}

export function decodeSchdBody(msg: XmlElement, styp: SchdStyp, meta: Meta, tz: string): SchdMessage {
  const ctx = rootContext(tz);
  const schd = single(msg, 'SCHD', ctx);
  if (schd === undefined) fail(ctx, 'SCHD', 'missing body');
  const body = at(ctx, 'SCHD');
  const fltrs = childrenNamed(schd, 'FLTR');
  const declaredRecords = readChild(schd, 'RECS', body, toInt) ?? null;
  if (declaredRecords !== null && declaredRecords !== fltrs.length) {
    fail(body, 'RECS', `declares ${declaredRecords} records, found ${fltrs.length} FLTR`);
  }
  const records = fltrs.map((f, i) => readRecord(f, at(body, 'FLTR', i + 1)));
  return { type: 'SCHD', styp, meta, declaredRecords, records };
}
