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

/** Where we are in the body, for error messages (e.g. `FLTR[2]/PSDT[1]/`), plus the airport zone. */
export interface ReadContext {
  tz: string;
  path: string;
}

export const at = (ctx: ReadContext, segment: string): ReadContext => ({ ...ctx, path: `${ctx.path}${segment}/` });

export function fail(ctx: ReadContext, element: string, problem: string): never {
  throw new BodyError(`${ctx.path}${element}: ${problem}`);
}

/** The one child named `name`, undefined when absent; a repeated element is a shape error. */
export function single(parent: XmlElement, name: string, ctx: ReadContext): XmlElement | undefined {
  const found = childrenNamed(parent, name);
  if (found.length > 1) fail(ctx, name, `repeated element (${found.length} times)`);
  return found[0];
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

export function toInt(text: string, ctx: ReadContext, element: string): number {
  if (!/^[+-]?\d{1,15}$/.test(text)) fail(ctx, element, `invalid integer '${text}'`);
  return Number(text);
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
