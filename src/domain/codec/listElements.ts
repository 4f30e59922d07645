/**
 * Repeatable list elements (PSDT, GTDT, CKDT, CLDT, CHDT, ABTM, CHOT, DELY, SRVT, ERUT, ROUT) →
 * a whole list of the flight. The elements present form the new list; an empty element
 * (`<PSDT/>`) contributes no item, so `<PSDT/>` alone clears the list.
 */
import { RECORD_LIST_ELEMENTS, type ListElement } from '../catalogue.ts';
import type { Allocation, BridgeOp, ChockEvent, Delay, GroundService, RoutePoint } from '../flight.ts';
import { orderList } from '../lists.ts';
import type { ListPatch, ListReplacement } from '../message.ts';
import {
  asCode, at, fail, readAttr, readChild, toDurationMinutes, toInt, toTime, type ReadContext,
} from './readers.ts';
import { childrenNamed, isEmptyElement, type XmlElement } from './xmlTree.ts';

interface AllocationTags {
  seq: string; code: string; cls?: string; kind?: string;
  scheduledStart: string; scheduledEnd: string; actualStart?: string; actualEnd?: string;
}

const ALLOCATIONS = {
  PSDT: { seq: 'PSNO', code: 'PSST', scheduledStart: 'STST', scheduledEnd: 'STET' },
  GTDT: { seq: 'GTNO', code: 'GATE', kind: 'GTYP', scheduledStart: 'PGOT', scheduledEnd: 'PGCT', actualStart: 'GOTM', actualEnd: 'GCTM' },
  CKDT: { seq: 'CKNO', code: 'CHKC', cls: 'CCLS', kind: 'CTYP', scheduledStart: 'PCOT', scheduledEnd: 'PCCT', actualStart: 'COTM', actualEnd: 'CCTM' },
  CLDT: { seq: 'CLNO', code: 'BELT', cls: 'BCLS', kind: 'BTYP', scheduledStart: 'PCOT', scheduledEnd: 'PCCT', actualStart: 'FBAG', actualEnd: 'LBAG' },
  CHDT: { seq: 'CHNO', code: 'CHUT', cls: 'CCLS', kind: 'CTYP', scheduledStart: 'PCBT', scheduledEnd: 'PCET', actualStart: 'CBTM', actualEnd: 'CETM' },
} as const satisfies Record<string, AllocationTags>;

/** Numbering attribute of each seq-ordered list element. */
const SEQ_ATTRIBUTE = {
  PSDT: 'PSNO', GTDT: 'GTNO', CKDT: 'CKNO', CLDT: 'CLNO', CHDT: 'CHNO', ABTM: 'ASNO', CHOT: 'CSNO', ERUT: 'RTNO', ROUT: 'RTNO',
} as const;

const code = (el: XmlElement, tag: string | undefined, ctx: ReadContext): string | null =>
  tag === undefined ? null : (readChild(el, tag, ctx, asCode) ?? null);
const time = (el: XmlElement, tag: string | undefined, ctx: ReadContext): string | null =>
  tag === undefined ? null : (readChild(el, tag, ctx, toTime) ?? null);

function required(value: string | null, ctx: ReadContext, tag: string): string {
  if (value === null) fail(ctx, tag, 'missing (required in this list item)');
  return value;
}

function readSeq(el: XmlElement, attr: string, ctx: ReadContext): number {
  const seq = readAttr(el, attr, ctx, toInt);
  if (seq === null) fail(ctx, `${el.name}@${attr}`, 'missing numbering attribute');
  return seq;
}

function readAllocation(el: XmlElement, tags: AllocationTags, ctx: ReadContext): Allocation {
  return {
    seq: readSeq(el, tags.seq, ctx),
    code: required(code(el, tags.code, ctx), ctx, tags.code),
    class: code(el, tags.cls, ctx),
    kind: code(el, tags.kind, ctx),
    scheduledStart: time(el, tags.scheduledStart, ctx),
    scheduledEnd: time(el, tags.scheduledEnd, ctx),
    actualStart: time(el, tags.actualStart, ctx),
    actualEnd: time(el, tags.actualEnd, ctx),
  };
}

const readBridge = (el: XmlElement, ctx: ReadContext): BridgeOp => ({
  seq: readSeq(el, 'ASNO', ctx),
  bridge: required(code(el, 'ABDG', ctx), ctx, 'ABDG'),
  operation: code(el, 'ABOP', ctx),
  time: time(el, 'AOTM', ctx),
});

const readChock = (el: XmlElement, ctx: ReadContext): ChockEvent => ({
  seq: readSeq(el, 'CSNO', ctx),
  stand: code(el, 'CHID', ctx),
  onOff: code(el, 'CHST', ctx),
  time: time(el, 'CHTM', ctx),
});

const readDelay = (el: XmlElement, ctx: ReadContext): Delay => ({
  code: required(readAttr(el, 'CODE', ctx, asCode), ctx, 'DELY@CODE'),
  start: readAttr(el, 'STRT', ctx, toTime),
  durationMinutes: readAttr(el, 'DURA', ctx, toDurationMinutes),
});

const readService = (el: XmlElement, ctx: ReadContext): GroundService => ({
  code: required(code(el, 'SRTC', ctx), ctx, 'SRTC'),
  quantity: readChild(el, 'SRQT', ctx, toInt) ?? null,
  start: time(el, 'SRST', ctx),
  end: time(el, 'SRET', ctx),
  provider: code(el, 'SRPR', ctx),
  abnormalReason: code(el, 'SANR', ctx),
  abnormalRemark: code(el, 'SARR', ctx),
});

const readRoutePoint = (el: XmlElement, ctx: ReadContext): RoutePoint => ({
  seq: readSeq(el, 'RTNO', ctx),
  airport: required(code(el, 'APCD', ctx), ctx, 'APCD'),
  scheduledArrival: time(el, 'SCAT', ctx),
  scheduledDeparture: time(el, 'SCDT', ctx),
});

/** Items must be unique by the list's key (seq, or (code, start) for delays) — as the tables are. */
function checkUnique<T>(items: readonly T[], keyOf: (item: T) => string, ctx: ReadContext, element: string): void {
  const seen = new Set<string>();
  for (const item of items) {
    const key = keyOf(item);
    if (seen.has(key)) fail(ctx, element, `duplicate item ${key}`);
    seen.add(key);
  }
}

function itemsOf(element: ListElement, els: XmlElement[], ctx: ReadContext): ListReplacement {
  // Empty elements carry no item (`<PSDT/>` alone = the list is cleared).
  const each = <T>(read: (el: XmlElement, c: ReadContext) => T): T[] =>
    els.flatMap((el, i) => (isEmptyElement(el) ? [] : [read(el, at(ctx, `${element}[${i + 1}]`))]));
  switch (element) {
    case 'PSDT': return { list: 'stands', items: each((el, c) => readAllocation(el, ALLOCATIONS.PSDT, c)) };
    case 'GTDT': return { list: 'gates', items: each((el, c) => readAllocation(el, ALLOCATIONS.GTDT, c)) };
    case 'CKDT': return { list: 'counters', items: each((el, c) => readAllocation(el, ALLOCATIONS.CKDT, c)) };
    case 'CLDT': return { list: 'belts', items: each((el, c) => readAllocation(el, ALLOCATIONS.CLDT, c)) };
    case 'CHDT': return { list: 'chutes', items: each((el, c) => readAllocation(el, ALLOCATIONS.CHDT, c)) };
    case 'ABTM': return { list: 'bridges', items: each(readBridge) };
    case 'CHOT': return { list: 'chocks', items: each(readChock) };
    case 'DELY': return { list: 'delays', items: each(readDelay) };
    case 'SRVT': return { list: 'services', items: each(readService) };
    case 'ERUT': return { list: 'route', items: each(readRoutePoint) };
    case 'ROUT': return { list: 'adjacent', items: each(readRoutePoint) };
  }
}

/**
 * The list carried by `parent`'s `element` children, in canonical order; undefined when the
 * element does not occur at all.
 */
export function readList(parent: XmlElement, element: ListElement, ctx: ReadContext): ListReplacement | undefined {
  const all = childrenNamed(parent, element);
  if (all.length === 0) return undefined;
  const r = itemsOf(element, all, ctx);
  if (r.list === 'delays') {
    checkUnique(r.items, (d) => `CODE=${d.code} STRT=${d.start ?? ''}`, ctx, element);
  } else if (r.list !== 'services' && element !== 'DELY' && element !== 'SRVT') {
    const attr = SEQ_ATTRIBUTE[element];
    checkUnique<{ seq: number }>(r.items, (i) => `${attr}=${i.seq}`, ctx, element);
  }
  // Re-pair list and items after ordering (orderList keeps the element type of its list).
  return { list: r.list, items: orderList(r.list, r.items) } as ListReplacement;
}

export const LIST_ELEMENTS = Object.keys(RECORD_LIST_ELEMENTS) as ListElement[];

/** Put a replacement into a list patch (the union pairs list and items; TS cannot index by it). */
export function assignList(patch: ListPatch, r: ListReplacement): void {
  (patch as Record<string, unknown>)[r.list] = r.items;
}
