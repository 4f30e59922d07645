/**
 * fast-check generators for the pieces of a message: valid and invalid values of each kind (text
 * codes with CJK and entities, times, int64 ids) and whole valid FLOP / SCHD messages. Envelopes
 * come from test/domain/support/buildXml.ts, so the fuzz speaks the same dialect as the domain tests.
 */
import fc from 'fast-check';
import { FLOP_FIELD_SUBTYPES } from '../../../src/domain/catalogue.ts';
import { VALUE_ELEMENTS } from '../../../src/domain/codec/fieldElements.ts';
import { flopXml, fltr, schdXml } from '../../domain/support/buildXml.ts';

export const INT64_MAX = 2n ** 63n - 1n;
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** Escape text for element content (and attribute values: quotes too). */
export function escapeXml(text: string, attribute = false): string {
  const s = text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return attribute ? s.replaceAll('"', '&quot;').replaceAll("'", '&apos;') : s;
}

/** Same text, some characters written as character references (decimal or hex). */
export const asCharRefs = (text: string, pick: readonly boolean[]): string =>
  [...text].map((ch, i) => {
    if (!pick[i % Math.max(pick.length, 1)]) return escapeXml(ch);
    const cp = ch.codePointAt(0)!;
    return i % 2 === 0 ? `&#${cp};` : `&#x${cp.toString(16).toUpperCase()};`;
  }).join('');

const CJK = ['延误', '因天气原因', '登机口变更', '首都机场', '航班取消', '値機', '탑승', 'ターミナル', '𠮷野家'];

/** Characters XML 1.0 allows (no C0 controls but tab/LF, no CR, no U+FFFE/FFFF, no lone surrogates). */
function isXmlText(s: string): boolean {
  return !/[\u0000-\u0008\u000B-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** Free text as an operator would type it: ASCII, CJK, symbols, XML specials, spaces. */
export const freeText = fc
  .array(fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
    { weight: 2, arbitrary: fc.constantFrom(...CJK) },
    { weight: 2, arbitrary: fc.constantFrom('&', '<', '>', '"', "'", ']]>', '&amp;', '&lt;', ' ', '\t', '\n', '\u3000', '\u00A0', '€', '—') },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 6 }) },
  ), { maxLength: 8 })
  .map((parts) => parts.join(''))
  .filter(isXmlText);

/** A code value (airline, stand, status, …): short, no surrounding space. */
export const codeText = fc.oneof(
  fc.stringMatching(/^[A-Z0-9]{1,8}$/),
  fc.constantFrom(...CJK),
  fc.constantFrom('A&B', 'X<1>', '"Q"', "O'K"),
);

export interface WallTime { year: number; month: number; day: number; hour: number; minute: number; second: number }

/** A real calendar time (days up to 28 unless checked), years the codec accepts. */
export const validWallTime = (years: { min: number; max: number }): fc.Arbitrary<WallTime> =>
  fc.record({
    year: fc.integer(years), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }), minute: fc.integer({ min: 0, max: 59 }), second: fc.integer({ min: 0, max: 59 }),
  }).filter((w) => isRealDate(w));

/** Calendar check independent of the codec: Date.UTC rolls invalid days over, which we detect. */
export function isRealDate(w: WallTime): boolean {
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day));
  return d.getUTCFullYear() === w.year && d.getUTCMonth() === w.month - 1 && d.getUTCDate() === w.day &&
    w.hour >= 0 && w.hour <= 23 && w.minute >= 0 && w.minute <= 59 && w.second >= 0 && w.second <= 59;
}

export const aodbTime = (w: WallTime): string => `${pad(w.day)}${MONTHS[w.month - 1]}${pad(w.year % 100)}${pad(w.hour)}${pad(w.minute)}`;
export const compactTime = (w: WallTime): string =>
  `${pad(w.year, 4)}${pad(w.month)}${pad(w.day)}${pad(w.hour)}${pad(w.minute)}${pad(w.second)}`;

/** A body time the codec must accept: `ddMMMyyHHmm` (20yy) or `yyyyMMddHHmmss`. */
export const validBodyTime = fc.oneof(
  validWallTime({ min: 2000, max: 2099 }).map(aodbTime),
  validWallTime({ min: 1900, max: 2999 }).map(compactTime),
);

/** Times that are not real or not in either format. */
export const invalidBodyTime = fc.oneof(
  fc.constantFrom('31FEB250930', '29FEB250930', '14XYZ250930', '2025-13-01', '24:00', '14MAR252400', '14MAR250960',
    '20250230120000', '20251301000000', '20250314240000', '20250314086000', '14MAR25093', '14MAR2509300', '1e400', 'now',
    '14 MAR 25 0930', '2025-03-14T09:30:00+08:00', '00MAR250930', '32JAN250930', '-1', '０９３０', '14MAR25O930'),
  fc.record({
    year: fc.integer({ min: 1900, max: 2999 }), month: fc.integer({ min: 0, max: 13 }), day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }), minute: fc.integer({ min: 0, max: 61 }), second: fc.integer({ min: 0, max: 61 }),
  }).filter((w) => !isRealDate(w)).map(compactTime),
);

/** An int64 key as canonical decimal text. */
export const validFlid = fc.bigInt({ min: 0n, max: INT64_MAX }).map(String);

/** Text that is not an int64 key (out of range, signed, fractional, exotic digits, …). */
export const invalidInt64Text = fc.oneof(
  fc.constantFrom('-1', '9223372036854775808', '18446744073709551616', '1e400', '1.5', '+5', '0x10', 'NaN', 'Infinity',
    '１２３', '١٢٣', '99999999999999999999999999', '12 34', '1_000', 'ABC'),
  fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 80n }).map(String),
  fc.bigInt({ min: -(2n ** 70n), max: -1n }).map(String),
);

/** One value for a FLOP field element, by the kind the element carries. */
function fieldValue(element: string): fc.Arbitrary<string> {
  if (element === 'FDIV') {
    return fc.oneof(fc.constant('<FDIV/>'), fc.tuple(fc.stringMatching(/^[A-Z]{3}$/), fc.constantFrom('TO', 'FROM'))
      .map(([a, d]) => `<FDIV DDES="${a}" DDIR="${d}"/>`));
  }
  if (element === 'FRET') return fc.constantFrom('<FRET/>', '<FRET REID="G"/>', '<FRET REID="A"/>');
  if (element === 'FLAB') return fc.oneof(fc.constant('<FLAB/>'), codeText.map((t) => `<FLAB ARES="TECH">${escapeXml(t)}</FLAB>`));
  if (element === 'PORT') return fc.oneof(fc.constant('<PORT/>'), validBodyTime.map((t) => `<PORT><POTM>${t}</POTM><POID>O</POID></PORT>`));
  const kind = (VALUE_ELEMENTS as Record<string, readonly [string, string]>)[element]?.[1] ?? 'code';
  const value = kind === 'time' ? validBodyTime : kind === 'int' ? fc.integer({ min: 0, max: 9999 }).map(String) : kind === 'flid' ? validFlid : kind === 'direction' ? fc.constantFrom('A', 'D', 'a', 'd') : codeText.map((t) => escapeXml(t));
  return fc.oneof({ weight: 1, arbitrary: fc.constant(`<${element}/>`) }, { weight: 4, arbitrary: value.map((v) => `<${element}>${v}</${element}>`) });
}

/** The element(s) of one FLOP field subtype, at least one present. */
function fieldSubtypeBody(styp: keyof typeof FLOP_FIELD_SUBTYPES): fc.Arbitrary<string> {
  const elements = FLOP_FIELD_SUBTYPES[styp];
  return fc.tuple(...elements.map((e) => fc.option(fieldValue(e), { nil: undefined })))
    .map((parts) => parts.filter((p): p is string => p !== undefined))
    .chain((present) => (present.length > 0 ? fc.constant(present.join('')) : fieldValue(elements[0]!)));
}

const seqs = fc.uniqueArray(fc.integer({ min: 1, max: 99 }), { minLength: 1, maxLength: 4 });

/** Valid bodies for some list subtypes (the shapes listElements.ts reads). */
const LIST_BODIES: Record<string, fc.Arbitrary<string>> = {
  GTDT: fc.tuple(seqs, codeText, validBodyTime).map(([ns, g, t]) =>
    ns.map((n) => `<GTDT GTNO="${n}"><GATE>${escapeXml(g)}</GATE><PGOT>${t}</PGOT><GTYP>N</GTYP></GTDT>`).join('')),
  PSDT: fc.tuple(seqs, codeText, validBodyTime, validBodyTime).map(([ns, s, a, b]) =>
    ns.map((n) => `<PSDT PSNO="${n}"><PSST>${escapeXml(s)}</PSST><STST>${a}</STST><STET>${b}</STET></PSDT>`).join('')),
  CHOT: fc.tuple(seqs, validBodyTime).map(([ns, t]) =>
    ns.map((n) => `<CHOT CSNO="${n}"><CHTM>${t}</CHTM><CHID>12</CHID><CHST>${n % 2 ? 'ON' : 'OFF'}</CHST></CHOT>`).join('')),
  DELY: fc.tuple(fc.uniqueArray(fc.stringMatching(/^[0-9]{2}[A-Z]?$/), { minLength: 1, maxLength: 3 }), validBodyTime, fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 59 }))
    .map(([codes, t, h, m]) => codes.map((c) => `<DELY CODE="${c}" STRT="${t}" DURA="${pad(h)}${pad(m)}"/>`).join('')),
  ERUT: fc.tuple(seqs, fc.stringMatching(/^[A-Z]{3}$/), validBodyTime).map(([ns, ap, t]) =>
    ns.map((n) => `<ERUT RTNO="${n}"><APCD>${ap}</APCD><SCDT>${t}</SCDT></ERUT>`).join('')),
  SRVT: fc.tuple(codeText, fc.integer({ min: 0, max: 999 }), freeText).map(([c, q, r]) =>
    `<SRVT><SRTC>${escapeXml(c)}</SRTC><SRQT>${q}</SRQT><SARR>${escapeXml(r)}</SARR></SRVT>`),
};

const meta = fc.record({
  sndr: fc.constantFrom('AODB', 'CIIMS', 'X'),
  seqn: fc.bigInt({ min: 0n, max: INT64_MAX }).map(String),
  dttm: validWallTime({ min: 1900, max: 2999 }).map(compactTime),
});

/** A valid FLOP message of any field subtype, FDEL or one of the list subtypes above. */
export const validFlopMessage: fc.Arbitrary<string> = fc.tuple(
  meta,
  fc.constantFrom(...Object.keys(FLOP_FIELD_SUBTYPES), ...Object.keys(LIST_BODIES), 'FDEL'),
  fc.integer({ min: 1, max: 3 }),
).chain(([m, styp, blocks]) => {
  const body = styp === 'FDEL' ? fc.constant('<FDEL/>')
    : Object.hasOwn(LIST_BODIES, styp) ? LIST_BODIES[styp]!
    : fieldSubtypeBody(styp as keyof typeof FLOP_FIELD_SUBTYPES);
  return fc.array(fc.tuple(validFlid, body), { minLength: blocks, maxLength: blocks })
    .map((bs) => flopXml(styp, bs, m));
});

/** A valid SCHD message (DNLD / RESP / ADFT) with 1–5 records. */
export const validSchdMessage: fc.Arbitrary<string> = fc.tuple(
  meta,
  fc.constantFrom('DNLD', 'RESP', 'ADFT'),
  fc.uniqueArray(validFlid, { minLength: 1, maxLength: 5 }),
  validBodyTime,
  codeText,
).map(([m, styp, flids, sodt, airline]) =>
  schdXml(styp, flids.map((f, i) => fltr(f, sodt, `<ALCD>${escapeXml(airline)}</ALCD><FLNO>${i}</FLNO><MVIN>${i % 2 ? 'A' : 'D'}</MVIN>`)), m));

export const validMessage = fc.oneof({ weight: 3, arbitrary: validFlopMessage }, { weight: 1, arbitrary: validSchdMessage });
