import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgressLine, rateAndEta } from '../../src/cli/progressLine.ts';
import { progressLine } from '../../src/cli/verifyCommand.ts';
import type { CheckProgress } from '../../src/consistency/runCheck.ts';

function stream(isTTY: boolean) {
  const s = new PassThrough() as unknown as NodeJS.WriteStream & { text(): string };
  let text = '';
  (s as unknown as PassThrough).on('data', (b: Buffer) => (text += b.toString()));
  Object.assign(s, { isTTY, columns: 40, text: () => text });
  return s;
}

it('writes plain lines when not on a terminal', () => {
  const s = stream(false);
  const p = createProgressLine(s);
  p.update('replay 10/100');
  p.update('replay 20/100');
  p.done();
  expect(s.text()).toBe('replay 10/100\nreplay 20/100\n');
});

it('rewrites one line in place on a terminal, cut to its width, and ends it once', () => {
  const s = stream(true);
  const p = createProgressLine(s);
  p.update('replay 10/100');
  p.update('x'.repeat(60));
  p.done();
  p.done();
  expect(s.text()).toBe(`\r\x1b[Kreplay 10/100\r\x1b[K${'x'.repeat(38)}…\n`);
});

describe('rateAndEta', () => {
  it('gives the rate so far and the time left at that rate', () => {
    expect(rateAndEta(30_000, 120_000, 2, 'position')).toBe('15000 position/s, ETA 6s');
    expect(rateAndEta(0, 10, 0, 'ev')).toBe('0 ev/s, ETA ?');
    expect(rateAndEta(10, 10, 1, 'ev')).toBe('10 ev/s, ETA 0s');
  });

  it('is in the verify fold line', () => {
    const line = progressLine({ phase: 'fold', position: '50000', upTo: '200000', events: 50_000 } as CheckProgress, 5);
    expect(line).toBe('verify: folding the log 50000/200000 (25%), 50000 events, 10000 position/s, ETA 15s');
  });
});
