import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { formatRedecideProgress, progressReporter } from '../../src/cli/redecideProgress.ts';
import { formatReport } from '../../src/cli/redecideReport.ts';
import { FakeClock } from '../../src/platform/clock.ts';
import type { RedecideReport } from '../../src/write/redecide/redecision.ts';

const report = (over: Partial<RedecideReport> = {}): RedecideReport => ({
  reportId: 'abc', from: '0', to: '40', decided: 33, differingMessages: [], differingFlights: [], replayableMessages: [], ...over,
});

describe('redecide progress', () => {
  it('draws a bar with rate and ETA on a terminal, plain lines otherwise', () => {
    const p = { events: 50, total: 200, decided: 40, position: '50' };
    expect(formatRedecideProgress(p, 2, true)).toBe('redecide [######..................]  25% 50/200 decisions, 40 messages re-decided, 25 ev/s, ETA 6s');
    expect(formatRedecideProgress(p, 2, false)).toBe('redecide: 50/200 decisions, 40 messages re-decided, 25 ev/s, ETA 6s, position 50');
    expect(formatRedecideProgress({ ...p, events: 0 }, 0, false)).toContain('ETA ?');
  });

  it('redraws the bar in place on a TTY and throttles lines by the clock elsewhere', () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const tty: string[] = [];
    const bar = progressReporter({ isTTY: true, columns: 200, write: (t) => tty.push(t) }, clock);
    bar.report({ events: 1, total: 2, decided: 1, position: '1' });
    clock.advance(200);
    bar.report({ events: 2, total: 2, decided: 2, position: '2' });
    bar.done();
    expect(tty).toHaveLength(3);
    expect(tty[0]).toMatch(/^\r\x1b\[K.*50%/);
    expect(tty[2]).toBe('\n');
    const lines: string[] = [];
    const plain = progressReporter({ write: (t) => lines.push(t) }, clock);
    plain.report({ events: 1, total: 9, decided: 1, position: '1' });
    clock.advance(500);
    plain.report({ events: 2, total: 9, decided: 2, position: '2' }); // within the second: dropped
    clock.advance(600);
    plain.report({ events: 3, total: 9, decided: 3, position: '3' });
    expect(lines.map((l) => l.endsWith('\n'))).toEqual([true, true]);
    expect(lines[1]).toContain('position 3');
  });
});

describe('redecide report text', () => {
  it('says when nothing differs', () => {
    expect(formatReport(report())).toContain('nothing differs');
  });

  it('lists counts, then messages and flights by GraphQL name', () => {
    const text = formatReport(report({
      differingMessages: [{
        msgId: '2',
        before: { kind: 'Applied', errorClass: null, changes: [{ type: 'FlightUpdated', flid: '1', fields: {} }] },
        after: { kind: 'Dead', errorClass: 'MALFORMED', changes: [] },
      }],
      differingFlights: [{ flid: '880001', fields: { estimatedTime: { before: '2025-03-14T02:18:00.000Z', after: '2025-03-14T01:18:00.000Z' } }, lists: { gates: { before: [], after: [{}] } } }],
    }));
    expect(text).toContain('1 message(s) with another outcome, 1 flight(s) with another end state');
    expect(text).toContain('Applied [FlightUpdated]  ->  Dead(MALFORMED)');
    expect(text).toMatch(/estimatedTime\s+2025-03-14T02:18:00.000Z {2}-> {2}2025-03-14T01:18:00.000Z/);
    expect(text).toMatch(/gates\s+0 item\(s\) {2}-> {2}1 item\(s\)/);
  });
});

describe('redecide usage errors exit 2 before touching a database', () => {
  it.each([
    [['redecide'], '--from'],
    [['redecide', '--from', 'yesterday'], 'position'],
    [['redecide', '--from', '0', '--flight', 'CA1501'], 'FLIDs'],
    [['redecide', '--from', '0', '--to', '9', '--apply', '--yes'], 'leave out --to'],
    [['redecide', '--from', '0', '--page-size', '0'], '--page-size must be a whole number'],
  ])('%j', async (argv, message) => {
    const writes: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((t: string) => { writes.push(String(t)); return true; }) as typeof process.stderr.write;
    try {
      expect(await main(argv)).toBe(2);
    } finally {
      process.stderr.write = orig;
    }
    expect(writes.join('')).toContain(message);
  });
});
