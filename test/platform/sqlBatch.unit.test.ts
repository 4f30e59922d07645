/**
 * columnLiterals (src/platform/sqlBatch.ts) sends the very text node-postgres would send for the
 * arrays of columnArrays: PostgreSQL reads the same values.
 */
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { columnArrays, columnLiterals, type CellValue, type ColumnSpec } from '../../src/platform/sqlBatch.ts';

const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (v: unknown) => unknown };

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', type: 'bigint' }, { name: 'n', type: 'integer' }, { name: 't', type: 'text' }, { name: 'b', type: 'boolean' },
  { name: 'at', type: 'timestamptz' }, { name: 'j', type: 'jsonb' }, { name: 'd', type: 'json' },
];

const text = fc.oneof(fc.string(), fc.constantFrom('', 'NULL', 'a"b', 'back\\slash', '{x,y}', ' sp ', '延误', '\\"'));
const json = fc.option(fc.jsonValue().map((v) => JSON.stringify(v)), { nil: null });
const row = fc.tuple(
  fc.option(fc.bigInt({ min: 0n, max: 2n ** 62n }).map(String), { nil: null }),
  fc.option(fc.integer(), { nil: null }),
  fc.option(text, { nil: null }),
  fc.option(fc.boolean(), { nil: null }),
  fc.option(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), { nil: null }),
  json,
  json,
) as fc.Arbitrary<CellValue[]>;

describe('columnLiterals', () => {
  it("gives node-postgres' own parameter text for every column", () => {
    fc.assert(fc.property(fc.array(row, { maxLength: 20 }), (rows) => {
      expect(columnLiterals(rows, COLUMNS)).toEqual(columnArrays(rows, COLUMNS).map((p) => (typeof p === 'string' ? p : prepareValue(p))));
    }), { numRuns: 300 });
  });

  it('refuses a row of another width', () => {
    expect(() => columnLiterals([['1']], COLUMNS)).toThrow(/expected 7/);
  });
});
