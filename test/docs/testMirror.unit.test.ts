/**
 * test/ mirrors src/ folder for folder (docs/architecture.md "Reading the code"): the tests of
 * src/<role>/<part> are under test/<role>/<part>, so a file's tests are found from its path. Beside
 * the mirror stand the folders that test msgx as a whole, and helper folders inside any folder.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Whole-system tests: corpus and scenarios, end to end, attacks and crashes, scaling, docs, shared support. */
const WHOLE = new Set(['corpus', 'scenarios', 'e2e', 'reliability', 'scaling', 'docs', 'support']);
/** Helper folders a test folder may hold (fixtures, harnesses, measurement helpers). */
const HELPERS = new Set(['support', 'perf']);

const dirs = (root: string): string[] =>
  readdirSync(root).filter((n) => !n.startsWith('.') && n !== 'node_modules' && statSync(path.join(root, n)).isDirectory());

/** Test folders with no src folder of the same path (below the whole-system and helper folders). */
function unmirrored(testRoot: string, srcRoot: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const d of dirs(path.join(testRoot, rel))) {
      const sub = path.join(rel, d);
      if ((rel === '' && WHOLE.has(d)) || HELPERS.has(d)) continue;
      let isDir = false;
      try {
        isDir = statSync(path.join(srcRoot, sub)).isDirectory();
      } catch {
        isDir = false;
      }
      if (!isDir) out.push(sub);
      else walk(sub);
    }
  };
  walk('');
  return out;
}

describe('test/ mirrors src/', () => {
  it('every test folder is a src folder, a whole-system folder or a helper folder', () => {
    expect(unmirrored('test', 'src')).toEqual([]);
  });

  it('every top folder of src has its test folder', () => {
    expect(dirs('src').filter((d) => !dirs('test').includes(d))).toEqual([]);
  });
});
