/**
 * Readers for body elements. They throw `BodyError` (codec-internal) naming the element path;
 * `decode` turns it into a CODEC_ERROR result at the codec boundary, so deep readers stay flat.
 *
 * Every reader distinguishes: absent element → `undefined` (unchanged), empty element → `null`
 * (clear), value → the parsed value.
 */
import type { Direction, Instant } from '../flight.ts';
import { parseBodyTime } from '../time.ts';
import { childrenNamed, type XmlElement } from './xmlTree.ts';

export class BodyError extends Error {
  override readonly name = 'BodyError';
}

/**
 * Where we are in the body, for error messages (e.g. `FLTR[2]/PSDT[1]/`), plus the airport zone.
 * The path is kept as a chain and spelled out only when an error is raised: a 3,000-flight plan
 * has ~20,000 list items, and a path string for each was garbage in all but the failing one.
 */
export interface ReadContext {
  readonly tz: string;
  readonly parent: ReadContext | null;
  readonly name: string;
  /** 1-based position among the siblings of that name; 0 = not numbered. */
  readonly index: number;
}

export const rootContext = (tz: string): ReadContext => ({ tz, parent: null, name: '', index: 0 });

/** The context one element deeper: `name` alone, or `name[index]` when `index` is given. */
export const at = (ctx: ReadContext, name: string, index = 0): ReadContext => ({ tz: ctx.tz, parent: ctx, name, index });

/** The path of `ctx`, e.g. `SCHD/FLTR[2]/PSDT[1]/` ('' at the root). */
export function pathOf(ctx: ReadContext): string {
  let path = '';
  for (let c: ReadContext | null = ctx; c !== null && c.parent !== null; c = c.parent) {
    path = `${c.index > 0 ? `${c.name}[${c.index}]` : c.name}/${path}`;
  }
  return path;
}

export function fail(ctx: ReadContext, element: string, problem: string): never {
  throw new BodyError(`${pathOf(ctx)}${element}: ${problem}`);
}

/** The one child named `name`, undefined when absent; a repeated element is a shape error. */
export function single(parent: XmlElement, name: string, ctx: ReadContext): XmlElement | undefined {
  // A plain scan, no array: a plan record is asked for ~30 names this way.
  let found: XmlElement | undefined;
  for (const child of parent.children) {
    if (child.name !== name) continue;
    if (found !== undefined) fail(ctx, name, `repeated element (${childrenNamed(parent, name).length} times)`);
    found = child;
  }
  return found;
}

/** Text of a value element: null when empty; child elements are a shape error. */
export function leafText(el: XmlElement, ctx: ReadContext): string | null {
  if (el.children.length > 0) fail(ctx, el.name, 'expected a value, found child elements');
  return el.text === '' ? null : el.text;
}

const FLID_MAX = 9223372036854775807n;

/** An int64 key (FLID, TAID, MAID) as a canonical decimal string. */
export function toFlid(text: string, ctx: ReadContext, element: string): string {
  if (!/^\d{1,19}$/.test(text) || BigInt(text) > FLID_MAX) fail(ctx, element, `invalid flight id '${text}'`);
  return BigInt(text).toString();
}

export function toTime(text: string, ctx: ReadContext, element: string): Instant {
  const instant = parseBodyTime(text, ctx.tz);
  if (instant === null) fail(ctx, element, `invalid time '${text}'`);
  return instant;
}

export function toDirection(text: string, ctx: ReadContext, element: string): Direction {
  const d = text.toUpperCase();
  if (d !== 'A' && d !== 'D') fail(ctx, element, `invalid direction '${text}' (expected A or D)`);
  return d;
}

/** A 32-bit integer (numbering attributes, quantities): what the read models and GraphQL `Int` hold. */
export function toInt(text: string, ctx: ReadContext, element: string): number {
  if (!/^[+-]?\d{1,10}$/.test(text)) fail(ctx, element, `invalid integer '${text}'`);
  const n = Number(text);
  if (n > 2_147_483_647 || n < -2_147_483_648) fail(ctx, element, `integer ${text} is out of range (32-bit)`);
  return n;
}

/** `HHMM` → minutes. */
export function toDurationMinutes(text: string, ctx: ReadContext, element: string): number {
  const m = /^(\d{2})(\d{2})$/.exec(text);
  if (!m || Number(m[2]) > 59) fail(ctx, element, `invalid duration '${text}' (expected HHMM)`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** Child value element read with `convert`: undefined absent, null empty. */
export function readChild<T>(
  parent: XmlElement,
  name: string,
  ctx: ReadContext,
  convert: (text: string, ctx: ReadContext, element: string) => T,
): T | null | undefined {
  const el = single(parent, name, ctx);
  if (el === undefined) return undefined;
  const text = leafText(el, ctx);
  return text === null ? null : convert(text, ctx, name);
}

/** Attribute value read with `convert`: null when the attribute is absent or blank. */
export function readAttr<T>(
  el: XmlElement,
  name: string,
  ctx: ReadContext,
  convert: (text: string, ctx: ReadContext, element: string) => T,
): T | null {
  const text = el.attrs.get(name);
  return text === undefined || text === '' ? null : convert(text, ctx, `${el.name}@${name}`);
}

export const asCode = (text: string): string => text;
