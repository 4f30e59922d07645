/**
 * Explicit limits of the codec, pinned with the inputs that probe them:
 * - size: 16 MiB of UTF-8 (= the compatibility endpoint's limit = CMINMSGS_CLOB_MSG MEDIUMTEXT);
 *   a message of that size still decodes in bounded time, a larger one is MALFORMED at once;
 * - nesting: 101 levels (xmlTree.ts); deeper is MALFORMED;
 * - the error text that goes to proc_state.last_error, the decision payload (jsonb), GraphQL and the
 *   log is short and holds no control characters (PostgreSQL refuses U+0000 in text and jsonb),
 *   whatever the input echoed into it.
 */
import { describe, expect, it } from 'vitest';
import { decode, type DecodeResult } from '../../src/domain/codec/decode.ts';
import { flopXml, msgXml } from '../domain/support/buildXml.ts';
import { timeBoundMs } from './support/fuzzCase.ts';

const TZ = 'Asia/Shanghai';
const MiB = 1024 * 1024;
const LIMIT_BYTES = 16 * MiB;
const MAX_ERROR_CHARS = 1000;

function timed(raw: string): { r: DecodeResult; ms: number } {
  const started = performance.now();
  const r = decode(raw, { tz: TZ });
  return { r, ms: performance.now() - started };
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
