/**
 * Batch statements over `ROWS FROM (unnest($1::type[]), …)`: one statement for any number of rows
 * (the decision append, the read-model and outbox writers). Column names and types come from
 * constant specs; values only travel as parameters.
 *
 * A `jsonb` (or `json`) column travels as ONE parameter, the JSON array of its cells
 * (`jsonb_array_elements`, `json_array_elements`), not as `jsonb[]`: node-postgres escapes every
 * array element character by character, which for the megabytes of JSON a plan snapshot writes
 * cost more CPU than the rest of the insert. A `json` column's array is only checked, not built
 * into jsonb: about half of PostgreSQL's CPU for the same text (the flight documents).
 */
/** Column types of batch statements; a `jsonb` or `json` cell is JSON text. */
export type SqlType = 'bigint' | 'integer' | 'text' | 'date' | 'timestamptz' | 'boolean' | 'jsonb' | 'json';

const isJson = (t: SqlType): t is 'jsonb' | 'json' => t === 'jsonb' || t === 'json';

export interface ColumnSpec {
  readonly name: string;
  readonly type: SqlType;
}

/** A value as handed to node-pg (instants as ISO text, ids as decimal strings, JSON as text). */
export type CellValue = string | number | boolean | null;

/** `ROWS FROM (unnest($1::bigint[]), jsonb_array_elements($2::jsonb), …)` for `columns`, numbering parameters from `first`. */
export function unnestOf(columns: readonly ColumnSpec[], first = 1): string {
  const sources = columns.map((c, i) =>
    isJson(c.type) ? `${c.type}_array_elements($${first + i}::${c.type})` : `unnest($${first + i}::${c.type}[])`,
  );
  return `ROWS FROM (${sources.join(', ')})`;
}

/**
 * Row-major cells → the parameters of `unnestOf`: one array per column; for a `jsonb` or `json`
 * column, whose cells are JSON texts, the text of one JSON array of them.
 */
export function columnArrays(rows: readonly (readonly CellValue[])[], columns: readonly ColumnSpec[]): (CellValue[] | string)[] {
  const width = columns.length;
  const cols: CellValue[][] = Array.from({ length: width }, () => new Array<CellValue>(rows.length));
  rows.forEach((row, r) => {
    if (row.length !== width) throw new Error(`row ${r} has ${row.length} cells, expected ${width}`);
    for (let c = 0; c < width; c++) cols[c]![r] = row[c]!;
  });
  return cols.map((cells, c) => (isJson(columns[c]!.type) ? `[${cells.map((v) => (v === null ? 'null' : String(v))).join(',')}]` : cells));
}

/**
 * `columnArrays` with every array column already as the text node-postgres would send for it (its
 * PostgreSQL array literal: each element quoted, `\` and `"` escaped, NULL for null), built with one
 * join per column. node-postgres builds that text itself one `+=` at a time, two regular-expression
 * replacements per element: for the tens of thousands of flights a rebuild writes, about a fifth of
 * its node CPU and the most garbage of any step (docs/projections.md "Rebuild"). The same text, so
 * PostgreSQL reads the same values.
 */
export function columnLiterals(rows: readonly (readonly CellValue[])[], columns: readonly ColumnSpec[]): string[] {
  const width = columns.length;
  rows.forEach((row, r) => {
    if (row.length !== width) throw new Error(`row ${r} has ${row.length} cells, expected ${width}`);
  });
  const parts = new Array<string>(rows.length);
  return columns.map((column, c) => {
    const json = isJson(column.type);
    for (let r = 0; r < rows.length; r++) {
      const v = rows[r]![c];
      if (json) parts[r] = v === null ? 'null' : String(v);
      else parts[r] = v === null || v === undefined ? 'NULL' : quotedElement(typeof v === 'string' ? v : String(v));
    }
    const [open, close] = json ? ['[', ']'] : ['{', '}'];
    if (rows.length === 0) return open + close;
    // The brackets go into the first and last element: `{${parts.join(',')}}` would be a rope that
    // node-postgres flattens, a second copy of the whole text.
    parts[0] = open + parts[0]!;
    parts[rows.length - 1] += close;
    return parts.join(',');
  });
}

const NEEDS_ESCAPE = /[\\"]/;

/** An array element as node-postgres writes it: in double quotes, `\` and `"` escaped with a backslash. */
function quotedElement(s: string): string {
  return NEEDS_ESCAPE.test(s) ? `"${s.replace(/[\\"]/g, '\\$&')}"` : `"${s}"`;
}

export function columnNames(columns: readonly ColumnSpec[]): string {
  return columns.map((c) => c.name).join(', ');
}

/**
 * A parameter as node-postgres would send it, computed ahead: an array becomes its PostgreSQL
 * array literal (elements quoted and escaped, NULL for null, instants as ISO text); anything else
 * is left to node-postgres.
 */
export function asParameter(value: unknown): unknown {
  return Array.isArray(value) ? arrayLiteral(value) : value;
}

function arrayLiteral(values: readonly unknown[]): string {
  const out = new ArrayLiteral();
  for (const v of values) out.add(v);
  return out.text();
}

/** A PostgreSQL array literal built element by element. */
export class ArrayLiteral {
  private out = '';

  add(v: unknown): void {
    if (this.out.length > 0) this.out += ',';
    if (v === null || v === undefined) this.out += 'NULL';
    else if (typeof v === 'string') this.out += /[\\"]/.test(v) ? `"${v.replace(/[\\"]/g, '\\$&')}"` : `"${v}"`;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') this.out += String(v);
    else if (v instanceof Date) this.out += `"${v.toISOString()}"`;
    else throw new Error(`unexpected array element ${typeof v}`);
  }

  text(): string {
    return `{${this.out}}`;
  }
}
