/**
 * The bounded META scan (src/domain/codec/metaPrefix.ts) that reads and the compat entry use
 * instead of decode (docs/security.md §7): it reads what decode reads, only from the first
 * META_PREFIX_CHARS characters, in one pass even on hostile prefixes, and answers "no META"
 * (null) rather than throwing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { META_PREFIX_CHARS, metaFromPrefix } from '../../src/domain/codec/metaPrefix.ts';
import { metaXml, msgXml } from '../domain/support/buildXml.ts';
import { cpuTimed } from '../support/cpuTime.ts';

const TZ = 'Asia/Shanghai';
const CORPUS = join(import.meta.dirname, '../corpus');

function corpusFiles(): string[] {
  return readdirSync(CORPUS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.xml')).map((f) => join(CORPUS, f));
}

function decodedMeta(raw: string) {
  const r = decode(raw, { tz: TZ });
  return r.ok ? r.message.meta : r.meta ?? null;
}

/** The scan's cost in CPU time (cpuTimed), warmed up first so a shape does not also pay for compiling the scan. */
function timedScan(raw: string): { meta: ReturnType<typeof metaFromPrefix>; ms: number } {
  metaFromPrefix(msgXml({ sndr: 'WARM' }, '<X/>'), TZ);
  const { value: meta, ms } = cpuTimed(() => metaFromPrefix(raw, TZ));
  return { meta, ms };
}

describe('metaFromPrefix', () => {
  it('reads the META decode reads, for every corpus message that has one', () => {
    const files = corpusFiles();
    expect(files.length).toBeGreaterThan(50);
    let withMeta = 0;
    for (const f of files) {
      const raw = readFileSync(f, 'utf8');
      const decoded = decodedMeta(raw);
      if (decoded === null) continue;
      withMeta++;
      expect(metaFromPrefix(raw, TZ), f).toEqual(decoded);
    }
    expect(withMeta).toBeGreaterThan(50);
  });

  it('reads spellings decode reads alike: BOM, CRLF, comments, CDATA, entities, attributes, elements before META', () => {
    const cases = [
      `\uFEFF<?xml version="1.0"?>\r\n<!-- head -->\r\n<MSG a="1" b='<x'>${metaXml({})}</MSG>`,
      `<MSG x = "1">\r\n<?pi x?><!-- <META> -->${metaXml({ sndr: ' A&amp;B<![CDATA[<c>]]> ' })}<FLOP/></MSG>`,
      `<MSG><HEAD><META><SNDR>NO</SNDR></META></HEAD><EMPTY/>${metaXml({ sndr: 'YES', extra: '<RCVR>R</RCVR><MGID><X/></MGID><OTHER a="b"/>' })}</MSG>`,
      msgXml({ type: 'fdel', styp: 'fdel', seqn: '0007' }, ''),
      msgXml({ dttm: '20250230000000' }, ''),
      msgXml({ sndr: 'LONGER_THAN_8' }, ''),
    ];
    for (const raw of cases) expect(metaFromPrefix(raw, TZ), raw).toEqual(decodedMeta(raw));
    // b='<x' is refused by the parser, so decode has no META; the scan is stricter still.
    expect(metaFromPrefix(cases[0]!, TZ)).toBeNull();
    expect(metaFromPrefix(cases[1]!, TZ)?.sndr).toBe('A&B<c>');
    expect(metaFromPrefix(cases[2]!, TZ)?.sndr).toBe('YES');
  });

  it('answers no META for what it cannot vouch for, without throwing', () => {
    const none = [
      '',
      'not xml',
      '<!DOCTYPE MSG [<!ENTITY e "AODB">]><MSG><META><SNDR>&e;</SNDR></META></MSG>',
      `<ROOT>${metaXml({})}</ROOT>`,
      `<MSG/>${metaXml({})}`,
      `<MSG><A>${metaXml({})}</A></MSG>`,
      `<MSG>${metaXml({}).replace('</META>', '</METAX>')}</MSG>`,
      `<MSG>${metaXml({}).replace('</META>', '')}`,
      `<MSG><!-- ${metaXml({})}`,
      `<MSG>${' '.repeat(META_PREFIX_CHARS)}${metaXml({})}</MSG>`,
    ];
    for (const raw of none) expect(metaFromPrefix(raw, TZ), raw.slice(0, 80)).toBeNull();
    expect(metaFromPrefix(msgXml({}, ''), 'Not/AZone')).toBeNull();
  });

  it('reads only the prefix of a multi-MiB message: META found, the rest never looked at', () => {
    const raw = msgXml({ sndr: 'BIG' }, `<BODY ${'a="" '.repeat(800_000)}/>`);
    expect(raw.length).toBeGreaterThan(3 * 1024 * 1024);
    expect(metaFromPrefix(raw, TZ)?.sndr).toBe('BIG');
  });

  // A linear pass over 64 KiB takes well under 10 ms of CPU; a quadratic one (a search to the end
  // from each attribute, the round-3 attribute flood) takes seconds. The bound is generous for GC.
  const hostile: Record<string, string> = {
    'attribute flood on MSG': `<MSG ${'a="" '.repeat(META_PREFIX_CHARS / 5)}`,
    'attribute flood on META': `<MSG><META ${'a="" '.repeat(META_PREFIX_CHARS / 5)}`,
    'attribute flood, no spaces': `<MSG><X${' a=""'.repeat(META_PREFIX_CHARS / 5)}`,
    'unclosed quotes': `<MSG><X ${'a="'.repeat(META_PREFIX_CHARS / 3)}`,
    'one long name': `<MSG><${'N'.repeat(META_PREFIX_CHARS)}`,
    'many unclosed comments': `<MSG>${'<!-'.repeat(META_PREFIX_CHARS / 3)}`,
    'many elements before META': `<MSG>${'<A/>'.repeat(META_PREFIX_CHARS / 4)}`,
    'deep nesting before META': `<MSG>${'<A>'.repeat(META_PREFIX_CHARS / 3)}`,
    'deep nesting in META': `<MSG><META>${'<A>'.repeat(META_PREFIX_CHARS / 3)}`,
    'many end tags in META': `<MSG><META>${'<A></A>'.repeat(META_PREFIX_CHARS / 7)}`,
    'entities in META text': `<MSG><META><SNDR>${'&amp;'.repeat(META_PREFIX_CHARS / 5)}`,
    'many lt': `<MSG>${'<'.repeat(META_PREFIX_CHARS)}`,
    'CDATA opened many times': `<MSG><META><SNDR>${'<![CDATA['.repeat(META_PREFIX_CHARS / 9)}`,
  };
  for (const [shape, prefix] of Object.entries(hostile)) {
    it(`scans a hostile 64 KiB prefix in one pass: ${shape}`, () => {
      const raw = prefix + 'x'.repeat(2 * 1024 * 1024); // more than the prefix: the rest is not read
      const { meta, ms } = timedScan(raw);
      expect(meta).toBeNull();
      expect(ms).toBeLessThan(500);
    });
  }
});
