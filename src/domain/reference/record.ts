/**
 * A reference record as data: every element of the record kept, as JSON.
 *
 *   <ITOP>CA</ITOP>                        "ITOP": "CA"
 *   <TRML MVIN="D" FLIN="I">T3</TRML>      "TRML": [{ "@MVIN": "D", "@FLIN": "I", "#text": "T3" }]
 *   <SUBC><CODE>001</CODE>…</SUBC>         "SUBC": [{ "CODE": "001", … }]
 *
 * An element with neither attributes nor children is its text; otherwise an object whose
 * attributes are `@NAME`, whose text (when any) is `#text` and whose children are their names.
 * A child that repeats is a list; the kind's known list elements are lists even when single.
 * Empty elements (no text, no attributes, no children) carry no value: they are left out of a
 * record (in an UPD they clear the element).
 */
import type { XmlElement } from '../codec/xmlTree.ts';
import { isEmptyElement } from '../codec/xmlTree.ts';
import type { ReferenceKindInfo } from './kinds.ts';

export type RefValue = string | RefObject | RefValue[];
export interface RefObject {
  [name: string]: RefValue;
}
/** A record's elements by tag name. */
export type RefFields = Readonly<Record<string, RefValue>>;

function refValueOf(el: XmlElement): RefValue {
  if (el.attrs.size === 0 && el.children.length === 0) return el.text;
  const o: RefObject = {};
  for (const [name, value] of el.attrs) o[`@${name}`] = value;
  if (el.text !== '') o['#text'] = el.text;
  addChildren(o, el.children, new Set());
  return o;
}

function addChildren(into: RefObject, children: readonly XmlElement[], lists: ReadonlySet<string>): void {
  const counts = new Map<string, number>();
  for (const c of children) if (!isEmptyElement(c)) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  for (const c of children) {
    if (isEmptyElement(c)) continue;
    const v = refValueOf(c);
    if (lists.has(c.name) || counts.get(c.name)! > 1) {
      const list = Object.hasOwn(into, c.name) ? (into[c.name] as RefValue[]) : (into[c.name] = []) as RefValue[];
      list.push(v);
    } else {
      into[c.name] = v;
    }
  }
}

/** The record's elements (empty ones left out). */
export function recordFields(el: XmlElement, kind: ReferenceKindInfo): RefFields {
  const o: RefObject = {};
  addChildren(o, el.children, new Set(kind.lists));
  return o;
}

/**
 * The elements an UPD carries: present ones with their value, empty ones as null (clear).
 * An element that is present both empty and with values keeps its values.
 */
export function patchFields(el: XmlElement, kind: ReferenceKindInfo): Readonly<Record<string, RefValue | null>> {
  const patch: Record<string, RefValue | null> = {};
  for (const c of el.children) if (isEmptyElement(c)) patch[c.name] = null;
  const values = recordFields(el, kind);
  for (const [name, v] of Object.entries(values)) patch[name] = v;
  return patch;
}

/** The text of a value: a string as it is, an object's `#text`, a list's first item; null when none. */
export function textOf(v: RefValue | null | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v === '' ? null : v;
  if (Array.isArray(v)) return v.length > 0 ? textOf(v[0]) : null;
  const t = v['#text'];
  return typeof t === 'string' && t !== '' ? t : null;
}

/** The record's key (its key element's text), or null: a keyless record. */
export function keyOf(fields: RefFields, kind: ReferenceKindInfo): string | null {
  const v = fields[kind.key];
  if (Array.isArray(v)) return null; // a repeated key identifies nothing
  return textOf(v);
}

export function nameOf(fields: RefFields, kind: ReferenceKindInfo): { name: string | null; nameLocal: string | null } {
  return {
    name: kind.name === null ? null : textOf(fields[kind.name]),
    nameLocal: kind.nameLocal === null ? null : textOf(fields[kind.nameLocal]),
  };
}

/** UPD: present elements replace, absent keep, empty (null) clear. */
export function mergeFields(current: RefFields | undefined, patch: Readonly<Record<string, RefValue | null>>): RefFields {
  const out: RefObject = { ...(current ?? {}) };
  for (const [name, v] of Object.entries(patch)) {
    if (v === null) delete out[name];
    else out[name] = v;
  }
  return out;
}

/** Deep equality of two records (key order ignored). */
export function sameFields(a: RefFields | undefined, b: RefFields | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameValue(a as RefObject, b as RefObject);
}

function sameValue(a: RefValue, b: RefValue): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameValue(x, b[i]!));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((key) => Object.hasOwn(b, key) && sameValue(a[key]!, b[key]!));
}

/** The elements of a record that may be shown when personal data is withheld. */
export function publicFields(fields: RefFields, kind: ReferenceKindInfo): RefFields {
  if (!kind.publicFields) return fields;
  const out: RefObject = {};
  for (const name of kind.publicFields) if (Object.hasOwn(fields, name)) out[name] = fields[name]!;
  return out;
}
