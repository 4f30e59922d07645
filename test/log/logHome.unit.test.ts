/**
 * The log has one home (docs/architecture.md "src/log"): SQL that reads or writes `decision_event`
 * appears only in src/log/ (and in migrations). Every other folder asks src/log for what it needs —
 * by calling its functions: no SQL text of src/log is imported by another folder.
 */
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, SRC } from '../domain/support/sourceModules.ts';

/** A statement naming the table: FROM/JOIN/INTO/UPDATE/TABLE decision_event (any case, any spacing). */
const LOG_SQL = /\b(?:from|join|into|update|table)\s+decision_event\b/i;

const outsideLog = (files: readonly { path: string; text: string }[]): string[] =>
  files
    .filter(({ path }) => !relative(SRC, path).startsWith('log/'))
    .filter(({ text }) => LOG_SQL.test(text))
    .map(({ path }) => relative(SRC, path));

/** SQL in a text: a statement keyword, a `$n` parameter, or a column alias. */
const SQL_TEXT = /\b(?:SELECT|INSERT|UPDATE|DELETE|WITH|FROM|WHERE|JOIN)\b|\$\d+|\bAS\s+"/;

/**
 * An exported string constant, or a function that returns text (a string, or an object holding one,
 * never a Promise: that one runs its SQL): from its first line to the next top-level line.
 */
const DECLARATION = /^export\s+(?:const\s+(\w+)[^=\n]*=\s*(['"`])|function\s+(\w+)\s*\([^)]*\)\s*:\s*(?!Promise)[^\n]*\bstring\b[^\n]*\{$)[\s\S]*?(?=^\S|(?![\s\S]))/gm;

/** The names each src/log module exports as SQL text (DECLARATION, holding SQL). */
function sqlExports(files: readonly { path: string; text: string }[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { path, text } of files.filter((f) => relative(SRC, f.path).startsWith('log/'))) {
    const code = text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    for (const m of code.matchAll(DECLARATION)) {
      if (SQL_TEXT.test(m[0])) out.set(path, (out.get(path) ?? new Set()).add((m[1] ?? m[3])!));
    }
  }
  return out;
}

/** `importer → module: name` for every SQL text of src/log a file outside it imports (a namespace import counts as all). */
function sqlImports(files: readonly { path: string; text: string }[]): string[] {
  const exported = sqlExports(files);
  return files
    .filter(({ path }) => !relative(SRC, path).startsWith('log/'))
    .flatMap(({ path, text }) =>
      [...text.matchAll(/\b(?:import|export)\s+(?:type\s+)?(\*\s+as\s+\w+|\{[^}]*\})\s*from\s*(['"])([^'"]+)\2/g)].flatMap((m) => {
        const sql = exported.get(resolve(dirname(path), m[3]!));
        if (!sql) return [];
        const names = m[1]!.startsWith('*') ? [...sql] : m[1]!.slice(1, -1).split(',').map((n) => n.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!);
        return names.filter((n) => sql.has(n)).map((n) => `${relative(SRC, path)} → ${relative(SRC, resolve(dirname(path), m[3]!))}: ${n}`);
      }));
}

describe('the log home', () => {
  it('no file outside src/log holds SQL on decision_event', () => {
    expect(outsideLog(sourceFiles())).toEqual([]);
  });

  it('catches the statement in every form, and lets a comment naming the column through', () => {
    const at = (p: string, text: string) => ({ path: `${SRC}${p}`, text });
    expect(outsideLog([
      at('write/a.ts', "q.query('SELECT max(position) FROM decision_event')"),
      at('read-api/b.ts', '`SELECT * FROM x\n  JOIN   decision_event d ON d.position = x.p`'),
      at('projections/c.ts', "'update DECISION_EVENT set kind = 1'"),
      at('log/d.ts', "'SELECT 1 FROM decision_event'"),
      at('domain/e.ts', '/** What decision_event.payload holds. */'),
    ])).toEqual(['write/a.ts', 'read-api/b.ts', 'projections/c.ts']);
  });

  it('no SQL text of src/log is imported by another folder: they call its functions', () => {
    expect(sqlImports(sourceFiles())).toEqual([]);
  });

  it('finds SQL constants and SQL-returning functions, and only their imports outside src/log', () => {
    const at = (p: string, text: string) => ({ path: `${SRC}${p}`, text });
    const log = at('log/a.ts', [
      "export const STATEMENT = 'SELECT 1 FROM decision_event WHERE position > $1';",
      'export const NOTIFY = `pg_notify($10, $1::text)`;',
      'export const KINDS = [\'Applied\'];',
      "export function ctes(when = 'true'): string {",
      '  return `appended AS (INSERT INTO decision_event SELECT 1 WHERE ${when})`;',
      '}',
      'export function statement(after: string): { text: string; values: unknown[] } {',
      "  return { text: 'SELECT 1 WHERE p > $1', values: [after] };",
      '}',
      'export async function read(q: Q): Promise<Row[]> {',
      "  return (await q.query('SELECT 1')).rows;",
      '}',
    ].join('\n'));
    expect([...(sqlExports([log]).get(log.path) ?? [])].sort()).toEqual(['NOTIFY', 'STATEMENT', 'ctes', 'statement']);
    expect(sqlImports([
      log,
      at('log/b.ts', "import { STATEMENT } from './a.ts';"),
      at('write/pump/c.ts', "import { read, KINDS, STATEMENT as S, statement } from '../../log/a.ts';"),
      at('write/d.ts', "import {\n  type Row,\n  ctes,\n} from '../log/a.ts';"),
      at('read-api/e.ts', "import * as log from '../log/a.ts';"),
      at('projections/f.ts', "import { read } from '../log/a.ts';"),
    ])).toEqual([
      'write/pump/c.ts → log/a.ts: STATEMENT',
      'write/pump/c.ts → log/a.ts: statement',
      'write/d.ts → log/a.ts: ctes',
      'read-api/e.ts → log/a.ts: STATEMENT',
      'read-api/e.ts → log/a.ts: NOTIFY',
      'read-api/e.ts → log/a.ts: ctes',
      'read-api/e.ts → log/a.ts: statement',
    ]);
  });
});
