/**
 * Explicit limits of the codec, pinned with the inputs that probe them:
 * - size: 16 MiB of UTF-8 (= the compatibility endpoint's limit = CMINMSGS_CLOB_MSG MEDIUMTEXT);
 *   a message of that size still decodes in bounded time, a larger one is MALFORMED at once;
 * - nesting: 101 levels (xmlTree.ts); deeper is MALFORMED;
 * - the reader's limits (xmlLimits.ts, docs/domain.md "Decode limits"): names of 64 characters,
 *   64 attributes per element, 100,000 children per element (records per message: a plan of 70,000
 *   minimal records decodes, one of 150,000 does not), 2,000,000 elements per message; a realistic
 *   16 MiB plan (21,000 flights with full lists) stays under all of them. Over a limit is MALFORMED
 *   at once, the reason naming the limit and the count;
 * - the error text that goes to proc_state.last_error, the decision payload (jsonb), GraphQL and the
 *   log is short and holds no control characters (PostgreSQL refuses U+0000 in text and jsonb),
 *   whatever the input echoed into it.
 */
import { describe, expect, it } from 'vitest';
import { decode, type DecodeResult } from '../../src/domain/codec/decode.ts';
import {
  MAX_ATTRIBUTES, MAX_CHILDREN, MAX_ELEMENTS, MAX_NAME_LENGTH,
} from '../../src/domain/codec/xmlLimits.ts';
import { generateDay } from '../../bench/generate.ts';
import { flopXml, fltr, msgXml, schdXml } from '../domain/support/buildXml.ts';
import { timeBoundMs } from './support/fuzzCase.ts';
import { cpuTimed } from '../support/cpuTime.ts';

const TZ = 'Asia/Shanghai';
const MiB = 1024 * 1024;
const LIMIT_BYTES = 16 * MiB;
const MAX_ERROR_CHARS = 1000;

/** Decode and its CPU time (cpuTimed: a loaded machine stretches wall time, not the CPU decode needs). */
function timed(raw: string): { r: DecodeResult; ms: number } {
  const { value: r, ms } = cpuTimed(() => decode(raw, { tz: TZ }));
  return { r, ms };
}

/** A FLOP/EXSS message of exactly `bytes` UTF-8 bytes, its remark padded with `fill`. */
function exssOfBytes(bytes: number, fill: string): string {
  const shell = flopXml('EXSS', [['1', '<EXSC>X</EXSC><EXSR></EXSR>']]);
  const room = bytes - Buffer.byteLength(shell);
  const unit = Buffer.byteLength(fill);
  const remark = fill.repeat(Math.floor(room / unit)) + 'r'.repeat(room % unit);
  return shell.replace('<EXSR></EXSR>', `<EXSR>${remark}</EXSR>`);
}

describe('codec limits', () => {
  it('decodes a message of exactly 16 MiB (CJK text) within its time bound', () => {
    const raw = exssOfBytes(LIMIT_BYTES, '延误');
    expect(Buffer.byteLength(raw)).toBe(LIMIT_BYTES);
    const { r, ms } = timed(raw);
    expect(r.ok).toBe(true);
    expect(ms).toBeLessThan(timeBoundMs(raw));
  });

  it('refuses a message over 16 MiB as MALFORMED, naming the limit, without parsing it', () => {
    const raw = exssOfBytes(LIMIT_BYTES + 1, 'x');
    const { r, ms } = timed(raw);
    expect(r.ok ? 'ok' : r.errorClass).toBe('MALFORMED');
    expect(r.ok ? '' : r.error).toMatch(/16 MiB/);
    expect(ms).toBeLessThan(1000);
  });

  it('refuses nesting deeper than 101 elements as MALFORMED', () => {
    const nest = (d: number) => '<A>'.repeat(d) + '</A>'.repeat(d);
    // MSG and FLOP are two levels: 99 more are allowed, 100 more are too many.
    expect(decode(flopXml('ESTT', [['1', `<ESTT/>${nest(99)}`]]), { tz: TZ }).ok).toBe(true);
    const deep = decode(flopXml('ESTT', [['1', `<ESTT/>${nest(100)}`]]), { tz: TZ });
    expect(deep.ok ? 'ok' : deep.errorClass).toBe('MALFORMED');
  });

  /** `decode` of an ESTT FLOP whose block also holds `extra` (unknown elements, ignored). */
  const withExtra = (extra: string): DecodeResult => decode(flopXml('ESTT', [['1', `<ESTT>14MAR250930</ESTT>${extra}`]]), { tz: TZ });
  const errorOf = (r: DecodeResult): string => (r.ok ? 'ok' : `${r.errorClass}: ${r.error}`);
  /** The column where the reader stopped (its reason ends with `(line L, col C)`). */
  const columnOf = (r: DecodeResult): number => Number(/col (\d+)\)$/.exec(r.ok ? '' : r.error)?.[1] ?? NaN);

  it('takes names of 64 characters and refuses 65, for elements and attributes', () => {
    const name = (n: number) => 'N'.repeat(n);
    expect(errorOf(withExtra(`<${name(MAX_NAME_LENGTH)} ${name(MAX_NAME_LENGTH)}="1"/>`))).toBe('ok');
    for (const extra of [`<${name(MAX_NAME_LENGTH + 1)}/>`, `<X ${name(MAX_NAME_LENGTH + 1)}="1"/>`, `<${name(MiB)}/>`]) {
      expect(errorOf(withExtra(extra))).toMatch(/^MALFORMED: over a decode limit: the name 'N{16}…' is longer than the 64 characters allowed per name/);
    }
  });

  it('takes 64 attributes on an element and refuses 65', () => {
    const attrs = (n: number) => Array.from({ length: n }, (_, i) => ` a${i}="${i}"`).join('');
    expect(errorOf(withExtra(`<X${attrs(MAX_ATTRIBUTES)}/>`))).toBe('ok');
    expect(errorOf(withExtra(`<X${attrs(MAX_ATTRIBUTES + 1)}/>`))).toMatch(/^MALFORMED: over a decode limit: <X> has 65 attributes, more than the 64 allowed per element/);
  });

  it('takes 100,000 children of one element and refuses the 100,001st at once', () => {
    expect(errorOf(withExtra(`<G>${'<X/>'.repeat(MAX_CHILDREN)}</G>`))).toBe('ok');
    const r = withExtra(`<G>${'<X/>'.repeat(3 * MAX_CHILDREN)}</G>`);
    expect(errorOf(r)).toMatch(/^MALFORMED: over a decode limit: <G> has 100,001 child elements, more than the 100,000 allowed per element/);
    expect(columnOf(r)).toBeLessThan(4 * (MAX_CHILDREN + 1) + 500);
  });

  const minimalPlan = (records: number) =>
    schdXml('DNLD', Array.from({ length: records }, (_, i) => fltr(String(100_000 + i), '14MAR250930')));
  it('decodes a plan of 70,000 minimal records and refuses one of 150,000 (records per message)', () => {
    const small = decode(minimalPlan(70_000), { tz: TZ });
    expect(small.ok && small.message.type === 'SCHD' ? small.message.records.length : errorOf(small)).toBe(70_000);
    const big = decode(minimalPlan(150_000), { tz: TZ });
    // SCHD's children are RECS and the records: the 100,000th FLTR is its 100,001st child.
    expect(errorOf(big)).toMatch(/^MALFORMED: over a decode limit: <SCHD> has 100,001 child elements/);
  });

  it('refuses the 2,000,001st element of a message at once', () => {
    const group = `<G>${'<X/>'.repeat(MAX_CHILDREN)}</G>`;
    const r = withExtra(group.repeat(Math.ceil((MAX_ELEMENTS + 1) / (MAX_CHILDREN + 1)) + 2));
    expect(errorOf(r)).toMatch(/^MALFORMED: over a decode limit: the message has 2,000,001 elements, more than the 2,000,000 allowed per message/);
    expect(columnOf(r)).toBeLessThan(4 * MAX_ELEMENTS + 500);
  });

  it('decodes a realistic 16 MiB plan (21,000 flights with full lists) within its time bound', () => {
    const plan = generateDay({ flights: 21_000, fullLists: true, flopsPerFlight: 0 }).messages[0]!;
    expect(Buffer.byteLength(plan)).toBeGreaterThan(15 * MiB);
    expect(Buffer.byteLength(plan)).toBeLessThanOrEqual(LIMIT_BYTES);
    const { r, ms } = timed(plan);
    expect(r.ok && r.message.type === 'SCHD' ? r.message.records.length : errorOf(r)).toBe(21_000);
    expect(ms).toBeLessThan(timeBoundMs(plan));
  });

  it('places a fault after 16 million line ends without splitting the text into lines', () => {
    const raw = `<MSG>${'\n'.repeat(LIMIT_BYTES - 20)}< `;
    const { r, ms } = timed(raw);
    expect(errorOf(r)).toBe(`MALFORMED: not well-formed XML: invalid space after '<' (line ${LIMIT_BYTES - 19}, col 1)`);
    expect(ms).toBeLessThan(timeBoundMs(raw));
  });

  const echoing: Record<string, string> = {
    'a 1 MiB body time': flopXml('ESTT', [['1', `<ESTT>${'9'.repeat(MiB)}</ESTT>`]]),
    'a 1 MiB flight id': flopXml('ESTT', [['9'.repeat(MiB), '<ESTT/>']]),
    'a 1 MiB META DTTM': msgXml({ dttm: '2'.repeat(MiB) }, '<FLOP><FLID>1</FLID><ESTT/></FLOP>'),
    'a 1 MiB tag name': `<MSG><${'T'.repeat(MiB)} =/></MSG>`,
    'a 1 MiB end tag': `<MSG></${'T'.repeat(MiB)}></MSG>`,
    'a 1 MiB list code': flopXml('DELY', [['1', `<DELY CODE="93" DURA="${'9'.repeat(MiB)}"/>`]]),
  };
  it.each(Object.keys(echoing))('keeps the error short for %s', (name) => {
    const r = decode(echoing[name]!, { tz: TZ });
    expect(r.ok).toBe(false);
    expect(r.ok ? 0 : r.error.length).toBeLessThanOrEqual(MAX_ERROR_CHARS);
  });

  // U+0000 breaks the PostgreSQL write of the error (text and jsonb refuse it); ESC sequences
  // reach operators' terminals through `msgx status` and log viewers.
  const controls: Record<string, string> = {
    'a NUL in a body time': flopXml('ESTT', [['1', '<ESTT>14MAR250930\u0000</ESTT>']]),
    'an ESC sequence in a flight id': flopXml('ESTT', [['1\u001b[2J', '<ESTT/>']]),
  };
  it.each(Object.keys(controls))('keeps control characters out of the error for %s', (name) => {
    const r = decode(controls[name]!, { tz: TZ });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
  });
});
