/** Envelope rules of the codec: META, error classes, XML safety. */
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { flopXml, metaXml, msgXml } from './support/buildXml.ts';
import { decodeOk, TZ } from './support/decodeOk.ts';

const ESTT_BODY = '<FLOP><FLID>1</FLID><ESTT>14MAR250930</ESTT></FLOP>';
const withMeta = (meta: string, body = ESTT_BODY): string => `<MSG><META>${meta}</META>${body}</MSG>`;
const META_OK = '<SNDR>AODB</SNDR><SEQN>7</SEQN><DTTM>20250314091207</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP>';

function failure(xml: string) {
  const r = decode(xml, { tz: TZ });
  if (r.ok) throw new Error('expected a failure');
  return r;
}

describe('META', () => {
  it('decodes the envelope fields', () => {
    const m = decodeOk(msgXml({ sndr: 'CIIMS', seqn: '000100457', dttm: '20250314001207',
      extra: '<RCVR>OMMS</RCVR><MGID>m-1</MGID><RMID>r-9</RMID>' }, ESTT_BODY));
    expect(m.meta).toEqual({
      sndr: 'CIIMS', seqn: '100457', dttm: '20250314001207', sentAt: '2025-03-13T16:12:07.000Z',
      localDate: '2025-03-14', type: 'FLOP', styp: 'ESTT', rawType: 'FLOP', rawStyp: 'ESTT',
      rcvr: 'OMMS', mgid: 'm-1', rmid: 'r-9',
    });
  });

  it('leaves RCVR/MGID/RMID null when absent or empty', () => {
    const m = decodeOk(withMeta(`${META_OK}<RMID/>`));
    expect([m.meta.rcvr, m.meta.mgid, m.meta.rmid]).toEqual([null, null, null]);
  });

  it('keeps int64 SEQN exactly (beyond 2^53)', () => {
    expect(decodeOk(msgXml({ seqn: '9223372036854775807' }, ESTT_BODY)).meta.seqn).toBe('9223372036854775807');
  });

  it('accepts DDTM as an alias of DTTM', () => {
    const m = decodeOk(withMeta('<SNDR>AODB</SNDR><SEQN>7</SEQN><DDTM>20250314091207</DDTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP>'));
    expect(m.meta.dttm).toBe('20250314091207');
    expect(m.meta.sentAt).toBe('2025-03-14T01:12:07.000Z');
  });

  it('reads TYPE=FDEL as FLOP/FDEL, with FLOP or FDEL blocks', () => {
    for (const body of ['<FDEL><FLID>88</FLID></FDEL>', '<FLOP><FLID>88</FLID><FDEL/></FLOP>']) {
      const m = decodeOk(msgXml({ type: 'FDEL', styp: 'FDEL' }, body));
      expect(m).toMatchObject({ type: 'FLOP', styp: 'FDEL', meta: { type: 'FLOP', styp: 'FDEL', rawType: 'FDEL' } });
      expect(m.type === 'FLOP' && m.ops).toEqual([{ flid: '88', ffid: null, action: { kind: 'delete' } }]);
    }
  });

  it('trims META values and upper-cases TYPE/STYP', () => {
    const m = decodeOk(withMeta('<SNDR> AODB </SNDR><SEQN> 7 </SEQN><DTTM>20250314091207</DTTM><TYPE>flop</TYPE><STYP>estt</STYP>'));
    expect([m.meta.sndr, m.meta.seqn, m.meta.type, m.meta.styp]).toEqual(['AODB', '7', 'FLOP', 'ESTT']);
  });
});

describe('the real envelope (interface.md)', () => {
  const REAL = `<?xml version="1.0" encoding="UTF-8"?>
<MSG xmlns:xsi = "http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation = "unisysaodbsis.xsd">
\t<META>
\t\t<SNDR>AODB</SNDR>
\t\t<SEQN>1243</SEQN>
\t\t<DTTM>20181105223126</DTTM>
\t\t<TYPE>FLOP</TYPE>
\t\t<STYP>GTDT</STYP>
\t</META>
\t<FLOP>
\t\t<FLID>4242</FLID>
\t\t<GTDT GTNO = "1">
\t\t\t<GATE>G20</GATE>
\t\t\t<PGOT>05nov181900</PGOT>
\t\t\t<PGCT>05Nov181930</PGCT>
\t\t</GTDT>
\t</FLOP>
</MSG>`;

  it('decodes tabs, newlines, xsi root attributes, spaces around = and any-case months', () => {
    const m = decodeOk(REAL);
    expect(m.meta).toMatchObject({ sndr: 'AODB', seqn: '1243', type: 'FLOP', styp: 'GTDT', sentAt: '2018-11-05T14:31:26.000Z' });
    expect(m.type === 'FLOP' && m.ops[0]).toMatchObject({
      flid: '4242',
      action: { kind: 'replace-list', list: 'gates', items: [{ seq: 1, code: 'G20', scheduledStart: '2018-11-05T11:00:00.000Z', scheduledEnd: '2018-11-05T11:30:00.000Z' }] },
    });
  });

  it.each([
    ['with children of its own', '<EXT><ORIG>CIIMS</ORIG><HOPS><HOP>1</HOP></HOPS></EXT>'],
    ['repeated', '<PRIO>1</PRIO><PRIO>2</PRIO>'],
    ['empty', '<XTRA/>'],
    ['an optional field repeated or nested', '<RCVR>A</RCVR><RCVR>B</RCVR><MGID><X/></MGID>'],
  ])('ignores an unknown META child %s', (_what, extra) => {
    const m = decodeOk(REAL.replace('<STYP>GTDT</STYP>', `<STYP>GTDT</STYP>${extra}`));
    expect(m.meta).toMatchObject({ seqn: '1243', styp: 'GTDT' });
  });

  it.each(['ADD', 'UPD', 'DEL', 'A1', 'N0N3'].filter((s) => s.length >= 3))('takes the 3/4-character STYP %s (UNSUPPORTED until a handler exists, never MALFORMED)', (styp) => {
    const r = decode(msgXml({ type: 'WXYZ', styp }, '<WXYZ/>'), { tz: TZ });
    expect(r).toMatchObject({ ok: false, errorClass: 'UNSUPPORTED', meta: { type: 'WXYZ', styp } });
  });

  it('takes a TYPE with digits', () => {
    expect(decode(msgXml({ type: 'RQ01', styp: 'NONE' }, '<X/>'), { tz: TZ })).toMatchObject({ errorClass: 'UNSUPPORTED' });
  });
});

describe('MALFORMED', () => {
  it.each([
    ['not XML at all', 'this is not xml <MSG><META>'],
    ['empty input', ''],
    ['unclosed tags', '<MSG><META>'],
    ['mismatched tags', '<MSG><A></B></MSG>'],
    ['a bare ampersand in text', `<MSG><META>${META_OK}</META><FLOP><FLID>1</FLID><EXSR>AT&T</EXSR></FLOP></MSG>`],
    ['two roots', '<MSG></MSG><MSG></MSG>'],
    ['a root that is not MSG', `<MESSAGE><META>${META_OK}</META></MESSAGE>`],
    ['no META', `<MSG>${ESTT_BODY}</MSG>`],
    ['two METAs', `<MSG><META>${META_OK}</META><META>${META_OK}</META></MSG>`],
    ['SNDR missing', withMeta('<SEQN>7</SEQN><DTTM>20250314091207</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP>')],
    ['SNDR longer than 8', withMeta(META_OK.replace('AODB', 'AODBAODB9'))],
    ['SEQN missing', withMeta(META_OK.replace('<SEQN>7</SEQN>', ''))],
    ['SEQN not an integer', withMeta(META_OK.replace('<SEQN>7</SEQN>', '<SEQN>7a</SEQN>'))],
    ['SEQN beyond int64', withMeta(META_OK.replace('<SEQN>7</SEQN>', '<SEQN>9223372036854775808</SEQN>'))],
    ['DTTM missing', withMeta(META_OK.replace('<DTTM>20250314091207</DTTM>', ''))],
    ['DTTM month 13', withMeta(META_OK.replace('20250314091207', '20251314091207'))],
    ['DTTM in body format', withMeta(META_OK.replace('20250314091207', '14MAR250930'))],
    ['TYPE missing', withMeta(META_OK.replace('<TYPE>FLOP</TYPE>', ''))],
    ['STYP of 2 characters', withMeta(META_OK.replace('<STYP>ESTT</STYP>', '<STYP>ES</STYP>'))],
    ['STYP of 5 characters', withMeta(META_OK.replace('<STYP>ESTT</STYP>', '<STYP>ESTTS</STYP>'))],
    ['STYP with a dash', withMeta(META_OK.replace('<STYP>ESTT</STYP>', '<STYP>E-T</STYP>'))],
    ['TYPE of 3 characters', withMeta(META_OK.replace('<TYPE>FLOP</TYPE>', '<TYPE>FLO</TYPE>'))],
    ['a repeated META field', withMeta(`${META_OK}<SNDR>X</SNDR>`)],
    ['a META field with children', withMeta(META_OK.replace('<SNDR>AODB</SNDR>', '<SNDR><X>1</X></SNDR>'))],
  ])('%s', (_what, xml) => {
    const r = failure(xml);
    expect(r.errorClass).toBe('MALFORMED');
    expect(r.meta).toBeUndefined();
  });

  it('names the META field at fault', () => {
    expect(failure(withMeta(META_OK.replace('<SEQN>7</SEQN>', ''))).error).toContain('SEQN');
  });

  it.each([
    ['<SEQN>7</SEQN><DTTM>x</DTTM>', 'META/SNDR: missing'],
    [META_OK.replace('AODB', ''), 'META/SNDR: empty'],
    [META_OK.replace('AODB', 'AODBAODB9'), 'META/SNDR: longer than 8 characters'],
    [META_OK.replace('<SEQN>7</SEQN>', '<SEQN>-7</SEQN>'), 'META/SEQN: not a non-negative integer'],
    [META_OK.replace('<SEQN>7</SEQN>', '<SEQN>9223372036854775808</SEQN>'), 'META/SEQN: out of int64 range'],
    [META_OK.replace('<DTTM>20250314091207</DTTM>', ''), 'META/DTTM: missing'],
    [META_OK.replace('<TYPE>FLOP</TYPE>', '<TYPE>FLOPS</TYPE>'), 'META/TYPE: not 4 letters or digits'],
    [META_OK.replace('<STYP>ESTT</STYP>', '<STYP>ES</STYP>'), 'META/STYP: not 3 or 4 letters or digits'],
    [META_OK.replace('<STYP>ESTT</STYP>', ''), 'META/STYP: missing'],
    [META_OK.replace('20250314091207', '20250230091207'), "META/DTTM: invalid time '20250230091207' (expected yyyyMMddHHmmss)"],
    // The first problem in SNDR, SEQN, DTTM, TYPE, STYP order wins.
    ['<STYP>1</STYP><TYPE>1</TYPE><SEQN>x</SEQN><SNDR>AODB</SNDR>', 'META/SEQN: not a non-negative integer'],
  ])('says exactly what is wrong: %s', (meta, error) => {
    expect(failure(withMeta(meta)).error).toBe(error);
  });

  it.each([
    ["a '<' in an attribute value", flopXml('GTDT', [['1', '<GTDT GTNO="<1"><GATE>A</GATE></GTDT>']])],
    ['an undeclared &nbsp;', flopXml('EXSS', [['1', '<EXSR>a&nbsp;b</EXSR>']])],
    ['a reference to U+0000', flopXml('EXSS', [['1', '<EXSR>a&#0;b</EXSR>']])],
  ])('refuses not well-formed XML: %s', (_what, xml) => {
    expect(failure(xml).errorClass).toBe('MALFORMED');
  });

  it('reads <!DOCTYPE inside CDATA or a comment as text', () => {
    const m = decodeOk(flopXml('EXSS', [['1', '<!-- <!DOCTYPE x> --><EXSR><![CDATA[<!DOCTYPE MSG>]]></EXSR>']]));
    expect(m.type === 'FLOP' && m.ops[0]?.action).toEqual({ kind: 'set-fields', fields: { publicStatus: null, publicRemark: '<!DOCTYPE MSG>' } });
  });

  it('refuses DOCTYPE and ENTITY declarations (no entity expansion at all)', () => {
    const bomb = '<?xml version="1.0"?><!DOCTYPE MSG [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>' +
      `<MSG><META>${META_OK}</META><FLOP><FLID>1</FLID><ESTT>&b;</ESTT></FLOP></MSG>`;
    const external = `<!DOCTYPE MSG SYSTEM "file:///etc/passwd"><MSG><META>${META_OK}</META>${ESTT_BODY}</MSG>`;
    for (const xml of [bomb, external]) {
      const r = failure(xml);
      expect(r.errorClass).toBe('MALFORMED');
      expect(r.error).toMatch(/DOCTYPE/);
    }
  });
});

describe('UNSUPPORTED', () => {
  it.each([
    ['an unknown FLOP subtype', flopXml('ZZZZ', [['1', '<ZZZZ>1</ZZZZ>']]), 'FLOP/ZZZZ'],
    ['an unknown SCHD subtype', msgXml({ type: 'SCHD', styp: 'WEEK' }, '<SCHD/>'), 'SCHD/WEEK'],
    ['an unknown TYPE', msgXml({ type: 'RQFD', styp: 'NONE' }, '<RQFD/>'), 'RQFD/NONE'],
  ])('%s, with the META kept', (_what, xml, pair) => {
    const r = failure(xml);
    expect(r.errorClass).toBe('UNSUPPORTED');
    expect(r.error).toContain(pair);
    expect(r.meta?.seqn).toBe('1');
  });
});

describe('CODEC_ERROR at the envelope', () => {
  it('keeps the META and names the element', () => {
    const r = failure(flopXml('ESTT', [['881001', '<ESTT>not-a-time</ESTT>']], { seqn: '300001' }));
    expect(r.errorClass).toBe('CODEC_ERROR');
    expect(r.error).toBe("FLOP[1]/ESTT: invalid time 'not-a-time'");
    expect(r.meta?.seqn).toBe('300001');
  });

  it('is what an unknown airport zone gives (configuration, retryable), never MALFORMED', () => {
    const r = decode(flopXml('ESTT', [['1', '<ESTT>14MAR250930</ESTT>']]), { tz: 'Nowhere/Special' });
    expect(r).toMatchObject({ ok: false, errorClass: 'CODEC_ERROR' });
  });
});

describe('XML text', () => {
  it('decodes the predefined entities and character references, keeps CJK, trims', () => {
    const m = decodeOk(flopXml('EXSS', [['1',
      '<EXSC> DEL </EXSC><EXSR>延误 &amp; &lt;晚&gt; &quot;x&quot; &apos;y&apos; &#20013;&#x56FD; &amp;lt;</EXSR>']]));
    expect(m.type === 'FLOP' && m.ops[0]?.action).toEqual({
      kind: 'set-fields', fields: { publicStatus: 'DEL', publicRemark: '延误 & <晚> "x" \'y\' 中国 &lt;' },
    });
  });

  it('reads CDATA as text and ignores comments and processing instructions', () => {
    const m = decodeOk(flopXml('EXSS', [['1', '<EXSR><![CDATA[a <b> & c]]></EXSR><!-- note --><?pi x?>']]));
    expect(m.type === 'FLOP' && m.ops[0]?.action).toEqual({ kind: 'set-fields', fields: { publicStatus: null, publicRemark: 'a <b> & c' } });
  });

  it('accepts a UTF-8 byte order mark', () => {
    expect(decode(`\uFEFF${flopXml('ACFT', [['1', '<ACFT>738</ACFT>']])}`, { tz: TZ }).ok).toBe(true);
  });

  it('treats odd element names (prototype keys) as ignorable unknown elements', () => {
    const m = decodeOk(flopXml('ACFT', [['1', '<__proto__>x</__proto__><constructor/><ACFT>738</ACFT>']]));
    expect(m.type === 'FLOP' && m.ops[0]?.action).toEqual({ kind: 'set-fields', fields: { aircraftType: '738' } });
  });

  it('builds the META from a fixture helper the other tests rely on', () => {
    expect(metaXml({})).toContain('<SNDR>AODB</SNDR>');
  });
});
