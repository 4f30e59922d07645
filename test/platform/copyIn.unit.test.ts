import { describe, expect, it } from 'vitest';
import { copyField, copyText } from '../../src/platform/copyIn.ts';
import type { ColumnSpec } from '../../src/platform/sqlBatch.ts';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'a', type: 'text' },
  { name: 'b', type: 'integer' },
  { name: 'c', type: 'boolean' },
  { name: 'd', type: 'json' },
];

describe('COPY text format', () => {
  it('writes null as \\N and an empty string as an empty field', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField('')).toBe('');
  });

  it('escapes backslash, newline, carriage return and tab, and nothing else', () => {
    expect(copyField('a\\b\nc\rd\te"f,g')).toBe('a\\\\b\\nc\\rd\\te"f,g');
  });

  it('ends every row with a newline, fields separated by tabs; JSON text escaped like any text', () => {
    const json = JSON.stringify({ x: 'q"\\' });
    expect(copyText([['x\ty', 1, true, json], [null, 0, false, null]], COLUMNS)).toBe(
      `x\\ty\t1\ttrue\t${json.replaceAll('\\', '\\\\')}\n\\N\t0\tfalse\t\\N\n`,
    );
    expect(copyText([], COLUMNS)).toBe('');
  });

  it('refuses a row of the wrong width', () => {
    expect(() => copyText([['a', 1]], COLUMNS)).toThrow(/row 0 has 2 cells, expected 4/);
  });
});
