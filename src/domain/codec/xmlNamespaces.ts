/**
 * Namespaces over the element tree of `xmlTree.ts` (docs/contract/aidx.md "Names"): the tree keeps
 * names as written (`aidx:FlightLeg`, `FlightLeg`) and `xmlns`/`xmlns:p` as attributes; this
 * resolves a name to (namespace URI, local name) so AIDX is matched whatever the prefix, as the
 * Namespaces in XML recommendation says. The SIS dialect has no namespaces and never comes here.
 *
 * Bounded: a scope is one small map per element that declares something (the tree's own limits,
 * 64 attributes per element and 101 levels, bound its size and depth).
 */
import type { XmlElement } from './xmlTree.ts';

export interface NsScope {
  readonly parent: NsScope | null;
  /** prefix ('' = default namespace) → URI ('' = undeclared) */
  readonly bindings: ReadonlyMap<string, string> | null;
}

export const ROOT_SCOPE: NsScope = Object.freeze({ parent: null, bindings: null });

/** The scope inside `el`: `scope` plus the namespaces `el` declares (the same scope when none). */
export function scopeOf(el: XmlElement, scope: NsScope): NsScope {
  let bindings: Map<string, string> | null = null;
  for (const [name, value] of el.attrs) {
    if (name === 'xmlns') (bindings ??= new Map()).set('', value);
    else if (name.startsWith('xmlns:')) (bindings ??= new Map()).set(name.slice(6), value);
  }
  return bindings === null ? scope : { parent: scope, bindings };
}

function lookup(scope: NsScope, prefix: string): string | null {
  for (let s: NsScope | null = scope; s !== null; s = s.parent) {
    const uri = s.bindings?.get(prefix);
    if (uri !== undefined) return uri;
  }
  return prefix === '' ? '' : null;
}

/** The local part of a name as written (`aidx:FlightLeg` → `FlightLeg`). */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * The namespace URI of element `el` in `inner` (its own scope, from scopeOf): '' for no namespace,
 * null for an undeclared prefix (never equal to a namespace we look for).
 */
export function namespaceOf(el: XmlElement, inner: NsScope): string | null {
  const colon = el.name.indexOf(':');
  return lookup(inner, colon === -1 ? '' : el.name.slice(0, colon));
}

/** Whether `el` (in its own scope `inner`) is {uri}local. */
export function isNamed(el: XmlElement, inner: NsScope, uri: string, local: string): boolean {
  return localName(el.name) === local && namespaceOf(el, inner) === uri;
}

/** An attribute by local name, unprefixed first (AIDX attributes are unqualified); undefined when absent. */
export function attrOf(el: XmlElement, local: string): string | undefined {
  const plain = el.attrs.get(local);
  if (plain !== undefined) return plain;
  for (const [name, value] of el.attrs) if (name.endsWith(`:${local}`) && !name.startsWith('xmlns:')) return value;
  return undefined;
}

/** `xsi:nil="true"` (or `1`) on `el`, with `xsi` bound to the XML Schema instance namespace. */
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export function isNil(el: XmlElement, inner: NsScope): boolean {
  for (const [name, value] of el.attrs) {
    const colon = name.indexOf(':');
    if (colon === -1 || name.slice(colon + 1) !== 'nil') continue;
    if (lookup(inner, name.slice(0, colon)) !== XSI_NS) continue;
    const v = value.trim();
    return v === 'true' || v === '1';
  }
  return false;
}
