/**
 * Repeatable list elements (PSDT, GTDT, CKDT, CLDT, CHDT, ABTM, CHOT, DELY, SRVT, ERUT, ROUT, VIPF,
 * PSHT, TIPT) →
 * a whole list of the flight. The elements present form the new list; an empty element
 * (`<PSDT/>`) contributes no item, so `<PSDT/>` alone clears the list.
 */
import { RECORD_LIST_ELEMENTS, type ListElement } from '../catalogue.ts';
import type { Allocation, BridgeOp, ChockEvent, Delay, GroundService, PushbackEvent, RoutePoint, TowEvent, VipGuest } from '../flight.ts';
import { sortListInPlace } from '../lists.ts';
import type { ListPatch, ListReplacement } from '../message.ts';
import {
  asCode, at, fail, readAttr, readChild, toDurationMinutes, toInt, toTime, type ReadContext,
} from './readers.ts';
import { isEmptyElement, type XmlElement } from './xmlTree.ts';

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
  PSHT: 'PSHN',
} as const;

/** Lists numbered by their order in the message (seq 1, 2, …), not by an attribute. */
const ORDERED = new Set<ListElement>(['VIPF', 'TIPT']);

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

const readVipGuest = (el: XmlElement, ctx: ReadContext, seq: number): VipGuest => ({
  seq,
  code: required(code(el, 'VPCD', ctx), ctx, 'VPCD'),
  escorts: readChild(el, 'VFES', ctx, toInt) ?? null,
});

const readPushback = (el: XmlElement, ctx: ReadContext): PushbackEvent => ({
  seq: readSeq(el, 'PSHN', ctx),
  time: time(el, 'PSTM', ctx),
  kind: code(el, 'PSID', ctx),
  stand: code(el, 'PUST', ctx),
});

const readTow = (el: XmlElement, ctx: ReadContext, seq: number): TowEvent => ({
  seq,
  time: time(el, 'TRTM', ctx),
  stand: code(el, 'TRST', ctx),
});

const readRoutePoint = (el: XmlElement, ctx: ReadContext): RoutePoint => ({
  seq: readSeq(el, 'RTNO', ctx),
  airport: required(code(el, 'APCD', ctx), ctx, 'APCD'),
  scheduledArrival: time(el, 'SCAT', ctx),
  scheduledDeparture: time(el, 'SCDT', ctx),
});

/**
 * Items must be unique by the list's key (seq, or (code, start) for delays) — as the tables are.
 * The first item (in message order) that repeats an earlier key is the one reported.
 */
function checkUnique<T>(
  items: readonly T[], same: (a: T, b: T) => boolean, keyOf: (item: T, element: ListElement) => string, ctx: ReadContext, element: ListElement,
): void {
  if (items.length <= 16) {
    // Lists are short (a few items): pairwise comparison allocates nothing.
    for (let i = 1; i < items.length; i++) {
      for (let j = 0; j < i; j++) {
        if (same(items[i]!, items[j]!)) fail(ctx, element, `duplicate item ${keyOf(items[i]!, element)}`);
      }
    }
    return;
  }
  const seen = new Set<string>();
  for (const item of items) {
    const key = keyOf(item, element);
    if (seen.has(key)) fail(ctx, element, `duplicate item ${key}`);
    seen.add(key);
  }
}

const sameDelay = (a: Delay, b: Delay): boolean => a.code === b.code && (a.start ?? '') === (b.start ?? '');
const delayKey = (d: Delay): string => `CODE=${d.code} STRT=${d.start ?? ''}`;
const sameSeq = (a: { seq: number }, b: { seq: number }): boolean => a.seq === b.seq;
const seqKey = (item: { seq: number }, element: ListElement): string =>
  `${SEQ_ATTRIBUTE[element as Exclude<ListElement, 'DELY' | 'SRVT' | 'VIPF' | 'TIPT'>]}=${item.seq}`;

const READERS: { readonly [E in ListElement]: (el: XmlElement, ctx: ReadContext, order: number) => object } = {
  PSDT: (el, c) => readAllocation(el, ALLOCATIONS.PSDT, c),
  GTDT: (el, c) => readAllocation(el, ALLOCATIONS.GTDT, c),
  CKDT: (el, c) => readAllocation(el, ALLOCATIONS.CKDT, c),
  CLDT: (el, c) => readAllocation(el, ALLOCATIONS.CLDT, c),
  CHDT: (el, c) => readAllocation(el, ALLOCATIONS.CHDT, c),
  ABTM: readBridge,
  CHOT: readChock,
  DELY: readDelay,
  SRVT: readService,
  ERUT: readRoutePoint,
  ROUT: readRoutePoint,
  VIPF: readVipGuest,
  PSHT: readPushback,
  TIPT: readTow,
};

/**
 * The list carried by `parent`'s `element` children, in canonical order; undefined when the
 * element does not occur at all.
 */
export function readList(parent: XmlElement, element: ListElement, ctx: ReadContext): ListReplacement | undefined {
  // Count first, so the items array is allocated at its size (a plan reads ~20,000 lists).
  let present = 0;
  let nonEmpty = 0;
  for (const el of parent.children) {
    if (el.name !== element) continue;
    present++;
    // Empty elements carry no item (`<PSDT/>` alone = the list is cleared).
    if (!isEmptyElement(el)) nonEmpty++;
  }
  if (present === 0) return undefined;
  const read = READERS[element];
  const items = new Array<object>(nonEmpty);
  let position = 0;
  let k = 0;
  for (const el of parent.children) {
    if (el.name !== element) continue;
    position++;
    if (!isEmptyElement(el)) {
      items[k] = read(el, at(ctx, element, position), k + 1);
      k++;
    }
  }
  // READERS pairs each element with the reader of its list's item type.
  const r = { list: RECORD_LIST_ELEMENTS[element], items } as ListReplacement;
  if (r.list === 'delays') {
    checkUnique(r.items, sameDelay, delayKey, ctx, element);
  } else if (r.list !== 'services' && element !== 'DELY' && element !== 'SRVT' && !ORDERED.has(element)) {
    checkUnique<{ seq: number }>(r.items, sameSeq, seqKey, ctx, element);
  }
  // The items array is this function's own: ordered in place.
  sortListInPlace(r.list, r.items);
  return r;
}

export const LIST_ELEMENTS = Object.keys(RECORD_LIST_ELEMENTS) as ListElement[];

/** Put a replacement into a list patch (the union pairs list and items; TS cannot index by it). */
export function assignList(patch: ListPatch, r: ListReplacement): void {
  (patch as Record<string, unknown>)[r.list] = r.items;
}
