/**
 * Scalar body elements → flight fields. One table serves both the FLTR records of SCHD messages
 * and the FLOP field subtypes, so a tag always means the same field.
 */
import type { FieldName } from '../flight.ts';
import type { FieldPatch } from '../message.ts';
import type { XmlElement } from './xmlTree.ts';
import { isEmptyElement } from './xmlTree.ts';
import { FIELD_UNITS } from '../catalogue.ts';
import {
  asCode, fail, readAttr, readChild, single, toDirection, toFlid, toInt, toTime, type ReadContext,
} from './readers.ts';

type ValueKind = 'code' | 'time' | 'flid' | 'direction' | 'int';

/** Value elements: `<TAG>value</TAG>`, empty = clear. */
export const VALUE_ELEMENTS = {
  FFID: ['ffid', 'code'],
  ALCD: ['airline', 'code'],
  FLNO: ['flightNo', 'code'],
  MVIN: ['direction', 'direction'],
  SODT: ['scheduledTime', 'time'],
  ESTT: ['estimatedTime', 'time'],
  ACTT: ['actualTime', 'time'],
  PADT: ['prevActualDeparture', 'time'],
  FLTY: ['serviceType', 'code'],
  FLIN: ['flightNature', 'code'],
  ACFT: ['aircraftType', 'code'],
  RENO: ['registration', 'code'],
  TRML: ['terminal', 'code'],
  STND: ['currentStand', 'code'],
  TAOP: ['linkAirline', 'code'],
  TAFL: ['linkFlightNo', 'code'],
  TAID: ['linkFlid', 'flid'],
  CSOP: ['masterAirline', 'code'],
  CSFT: ['masterFlightNo', 'code'],
  MAID: ['masterFlid', 'flid'],
  BOTM: ['boardingOpen', 'time'],
  LACL: ['lastCall', 'time'],
  FINT: ['boardingClosed', 'time'],
  CNCL: ['cancelTime', 'time'],
  FTSS: ['status', 'code'],
  EXSC: ['publicStatus', 'code'],
  EXSR: ['publicRemark', 'code'],
  PHAG: ['agentPassenger', 'code'],
  FHAG: ['agentField', 'code'],
  MHAG: ['agentMaintenance', 'code'],
  // The whole interface (interface.md).
  EOBT: ['eobt', 'time'],
  TOBT: ['tobt', 'time'],
  COBT: ['cobt', 'time'],
  CTOT: ['ctot', 'time'],
  IEST: ['iest', 'time'],
  APPT: ['appt', 'time'],
  EGSR: ['egsr', 'time'],
  EGST: ['egst', 'time'],
  PEDT: ['prevEstimatedDeparture', 'time'],
  NEAT: ['nextEstimatedArrival', 'time'],
  NAAT: ['nextActualArrival', 'time'],
  MAXP: ['maxPassengers', 'int'],
  REMC: ['remark', 'code'],
  RUNW: ['runway', 'code'],
  VIPP: ['vipPassengers', 'int'],
  VIPR: ['vipReserved', 'int'],
} as const satisfies Record<string, readonly [FieldName, ValueKind]>;

/**
 * Elements whose value is carried in attributes or child elements, set as a whole:
 * `<FDIV DDES= DDIR=/>`, `<FRET REID=/>`, `<FLAB ARES=>remark</FLAB>`, `<PORT><POTM/><POID/></PORT>`.
 */
export const ATTRIBUTE_ELEMENTS = ['FDIV', 'FRET', 'FLAB', 'PORT'] as const;

export type FieldElement = keyof typeof VALUE_ELEMENTS | (typeof ATTRIBUTE_ELEMENTS)[number];

const CONVERTERS = {
  code: asCode,
  time: toTime,
  flid: toFlid,
  direction: toDirection,
  int: toInt,
} as const;

function isValueElement(name: string): name is keyof typeof VALUE_ELEMENTS {
  return Object.hasOwn(VALUE_ELEMENTS, name);
}

/**
 * Attribute elements carry their value in attributes: an element with no text and no attributes
 * clears it; otherwise each attribute of the unit is its part, and a part that is absent or `""`
 * is cleared (`<FDIV DDES="" DDIR=""/>` undoes a diversion). Text or children without any of the
 * unit's attributes is a shape the codec cannot read.
 */
function hasAnyAttr(el: XmlElement, names: readonly string[]): boolean {
  return names.some((n) => el.attrs.has(n));
}

function checkAttributeShape(el: XmlElement, names: readonly string[], ctx: ReadContext): void {
  if (!hasAnyAttr(el, names) && (el.text !== '' || el.children.length > 0)) {
    fail(ctx, el.name, `expected ${names.join('/')} attributes or an empty element`);
  }
}

/** FDIV: diversion airport and direction, set together; empty element = diversion undone. */
function readDiversion(el: XmlElement, ctx: ReadContext, patch: FieldPatch): void {
  if (isEmptyElement(el)) {
    patch.diversionAirport = null;
    patch.diversionDirection = null;
    return;
  }
  checkAttributeShape(el, ['DDES', 'DDIR'], ctx);
  patch.diversionAirport = readAttr(el, 'DDES', ctx, asCode);
  patch.diversionDirection = readAttr(el, 'DDIR', ctx, (t) => t.toUpperCase());
}

/** FRET: return type (G ground / A air) in REID; empty element (or REID="") = return undone. */
function readReturn(el: XmlElement, ctx: ReadContext, patch: FieldPatch): void {
  if (isEmptyElement(el)) {
    patch.returnType = null;
    return;
  }
  checkAttributeShape(el, ['REID'], ctx);
  patch.returnType = readAttr(el, 'REID', ctx, (t) => t.toUpperCase());
}

/**
 * FLAB: irregular (abnormal) flight — reason in ARES, remark in the text, set together; empty =
 * cleared. `<FLAB ARES="G"/>` sets the reason and clears the remark.
 */
function readAbnormal(el: XmlElement, ctx: ReadContext, patch: FieldPatch): void {
  if (el.children.length > 0) fail(ctx, 'FLAB', 'expected an ARES attribute and a remark text, found child elements');
  patch.abnormalReason = readAttr(el, 'ARES', ctx, asCode);
  patch.abnormalRemark = el.text === '' ? null : el.text;
}

/** PORT: the port event's time (POTM) and code (POID), set together; empty = cleared. */
function readPort(el: XmlElement, ctx: ReadContext, patch: FieldPatch): void {
  if (el.text !== '' && el.children.length === 0) fail(ctx, 'PORT', 'expected POTM/POID child elements or an empty element');
  patch.portTime = readChild(el, 'POTM', ctx, toTime) ?? null;
  patch.portCode = readChild(el, 'POID', ctx, asCode) ?? null;
}

const ATTRIBUTE_READERS = { FDIV: readDiversion, FRET: readReturn, FLAB: readAbnormal, PORT: readPort } as const;

/**
 * Read element `name` of `parent` into `patch` (absent: nothing written). Returns whether the
 * element was present.
 */
export function readFieldElement(parent: XmlElement, name: FieldElement, ctx: ReadContext, patch: FieldPatch): boolean {
  if (isValueElement(name)) {
    const [field, kind] = VALUE_ELEMENTS[name];
    const convert = CONVERTERS[kind] as (text: string, ctx: ReadContext, element: string) => unknown;
    const value = readChild(parent, name, ctx, convert);
    if (value === undefined) return false;
    // The table pairs each field with a converter of its type; TS cannot follow the pairing.
    (patch as Record<FieldName, unknown>)[field] = value;
    return true;
  }
  const el = single(parent, name, ctx);
  if (el === undefined) return false;
  ATTRIBUTE_READERS[name](el, ctx, patch);
  return true;
}

/**
 * Read the elements `names` of `parent` (a FLTR record or a FLOP block) into `patch`, then apply
 * the unit rule (interface.md): when a message carries any element of a unit (TAOP/TAFL/TAID,
 * EXSC/EXSR), an element of that unit it lacks clears its part. Returns the elements present.
 */
export function readFieldElements(parent: XmlElement, names: readonly FieldElement[], ctx: ReadContext, patch: FieldPatch): Set<string> {
  const present = new Set<string>();
  for (const name of names) if (readFieldElement(parent, name, ctx, patch)) present.add(name);
  for (const unit of FIELD_UNITS) {
    if (!unit.some((e) => present.has(e))) continue;
    for (const e of unit) {
      if (!present.has(e) && isValueElement(e)) (patch as Record<FieldName, unknown>)[VALUE_ELEMENTS[e][0]] = null;
    }
  }
  return present;
}

export const ALL_FIELD_ELEMENTS: readonly FieldElement[] = [
  ...(Object.keys(VALUE_ELEMENTS) as (keyof typeof VALUE_ELEMENTS)[]),
  ...ATTRIBUTE_ELEMENTS,
];
