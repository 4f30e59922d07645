/**
 * The log has one home (docs/architecture.md "src/log"): SQL that reads or writes `decision_event`
 * appears only in src/log/ (and in migrations). Every other folder asks src/log for what it needs.
 */
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, SRC } from '../domain/support/sourceModules.ts';

/** A statement naming the table: FROM/JOIN/INTO/UPDATE/TABLE decision_event (any case, any spacing). */
const LOG_SQL = /\b(?:from|join|into|update|table)\s+decision_event\b/i;

const outsideLog = (files: readonly { path: string; text: string }[]): string[] =>
  files
    .filter(({ path }) => !relative(SRC, path).startsWith('log/'))
    .filter(({ text }) => LOG_SQL.test(text))
    .map(({ path }) => relative(SRC, path));

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
});
