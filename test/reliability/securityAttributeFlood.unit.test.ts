/**
 * The attribute flood (docs/security.md §12): `<MSG a="" b="" …640,000 attributes…><NOMETA/></MSG>`,
 * ~5 MB. The reader searched for `<` from each attribute to the end of the tag, so decoding took
 * the square of the attribute count: 25 s of CPU here (292 s at 16 MiB), with the whole process
 * frozen. Now the reader refuses the message at its 65th attribute (docs/domain.md "Decode limits"):
 * MALFORMED, with a reason that names the limit and the count, at a position near the start of the
 * text — proof that it stopped there instead of reading on. The CPU-time bound is only a backstop,
 * far above the milliseconds it takes.
 */
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { MAX_ATTRIBUTES } from '../../src/domain/codec/xmlLimits.ts';
import { decodeHead } from '../../src/write/pump/decodeHead.ts';
import { metaXml } from '../domain/support/buildXml.ts';

const TZ = 'Asia/Shanghai';
const MiB = 1024 * 1024;
/** A backstop only: the refusal takes milliseconds; the old reader took 25 s of CPU at 5 MB. */
const MAX_CPU_MS = 2000;
const REASON = /^over a decode limit: <MSG> has 65 attributes, more than the 64 allowed per element \(line 1, col (\d+)\)$/;

/** Attribute name number `i`: a, b, …, z, ba, bb, … (all distinct). */
function attributeName(i: number): string {
  let s = '';
  let n = i;
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

/** `<MSG` with `count` empty attributes (or as many as fit in `maxChars`), then `rest`. */
function flood(count: number, rest: string, maxChars = Infinity): string {
  const attrs: string[] = [];
  let size = `<MSG>${rest}</MSG>`.length;
  for (let i = 0; i < count; i++) {
    const attr = ` ${attributeName(i)}=""`;
    if (size + attr.length > maxChars) break;
    attrs.push(attr);
    size += attr.length;
  }
  return `<MSG${attrs.join('')}>${rest}</MSG>`;
}

/** Decode, with the CPU time it took (waiting for a core on a busy machine does not count). */
function timedDecode(raw: string) {
  const before = process.cpuUsage();
  const r = decode(raw, { tz: TZ });
  const used = process.cpuUsage(before);
  return { r, cpuMs: (used.user + used.system) / 1000 };
}

function refusedAtOnce(r: ReturnType<typeof decode>): void {
  expect(r.ok ? 'ok' : r.errorClass).toBe('MALFORMED');
  const m = REASON.exec(r.ok ? '' : r.error);
  expect(m, r.ok ? '' : r.error).not.toBeNull();
  // The 65th attribute starts within the first few hundred characters.
  expect(Number(m![1])).toBeLessThan(MAX_ATTRIBUTES * 10);
}

describe('attribute flood', () => {
  it('refuses the 640,000-attribute message (~5 MB) at its 65th attribute', () => {
    const raw = flood(640_000, '<NOMETA/>');
    expect(raw.length).toBeGreaterThan(4.5e6);
    expect(raw.length).toBeLessThan(5.5e6);
    const { r, cpuMs } = timedDecode(raw);
    refusedAtOnce(r);
    expect(cpuMs).toBeLessThan(MAX_CPU_MS);
  });

  it('refuses the same flood at 16 MiB, the largest message accepted', () => {
    const raw = flood(Infinity, '<NOMETA/>', 16 * MiB);
    expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(16 * MiB);
    expect(raw.length).toBeGreaterThan(16 * MiB - 10);
    const { r, cpuMs } = timedDecode(raw);
    refusedAtOnce(r);
    expect(cpuMs).toBeLessThan(MAX_CPU_MS);
  });

  it('refuses a valid FLOP carrying the flood (it took 143 s and 4 fence errors)', () => {
    const raw = flood(640_000, `${metaXml({})}<FLOP><FLID>1</FLID><ESTT>14MAR250930</ESTT></FLOP>`);
    const { r, cpuMs } = timedDecode(raw);
    refusedAtOnce(r);
    expect(cpuMs).toBeLessThan(MAX_CPU_MS);
  });

  it('is MALFORMED with that reason on the pump path too (a dead message, never retried)', () => {
    const head = decodeHead(flood(640_000, '<NOMETA/>'), false, { airportTz: TZ, identityIncludeDay: false, airportIata: undefined });
    expect(head.ok ? 'ok' : head.errorClass).toBe('MALFORMED');
    expect(head.ok ? '' : head.error).toMatch(REASON);
  });

  it('still decodes 64 attributes on an element', () => {
    const raw = flood(MAX_ATTRIBUTES, `${metaXml({})}<FLOP><FLID>1</FLID><ESTT>14MAR250930</ESTT></FLOP>`);
    const r = decode(raw, { tz: TZ });
    expect(r.ok ? 'ok' : r.error).toBe('ok');
  });
});
