/**
 * Batch statements over `unnest($1::type[], $2::type[], …)`: one statement for any number of rows.
 * Column names and types come from constant specs (flightRows.ts); values only travel as parameters.
 */
import type { CellValue, ColumnSpec } from './flightRows.ts';

/** `unnest($1::bigint[], $2::text[], …)` for `columns`, numbering parameters from `first`. */
export function unnestOf(columns: readonly ColumnSpec[], first = 1): string {
  return `unnest(${columns.map((c, i) => `$${first + i}::${c.type}[]`).join(', ')})`;
}

/** Row-major cells → one array per column (the parameters of `unnestOf`). */
export function columnArrays(rows: readonly (readonly CellValue[])[], width: number): CellValue[][] {
  const cols: CellValue[][] = Array.from({ length: width }, () => new Array<CellValue>(rows.length));
  rows.forEach((row, r) => {
    if (row.length !== width) throw new Error(`row ${r} has ${row.length} cells, expected ${width}`);
    for (let c = 0; c < width; c++) cols[c]![r] = row[c]!;
  });
  return cols;
}

export function columnNames(columns: readonly ColumnSpec[]): string {
  return columns.map((c) => c.name).join(', ');
}
