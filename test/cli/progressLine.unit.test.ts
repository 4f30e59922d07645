import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { createProgressLine } from '../../src/cli/progressLine.ts';

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
