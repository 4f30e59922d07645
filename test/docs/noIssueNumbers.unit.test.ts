/**
 * Comments cite docs/ sections, never issue numbers: an issue number means nothing to a reader of
 * the repository (docs/architecture.md, "Reading the code").
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = ['src', 'bench', 'test', 'bin', 'scripts'];
const CITATION = new RegExp(['\\bissues?', '#?\\d+\\b'].join('\\s+'), 'i');

async function* filesUnder(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* filesUnder(p);
    else if (/\.(ts|js|mjs|sql|graphql)$/.test(e.name)) yield p;
  }
}

describe('comments cite docs, not issues', () => {
  it('no source, bench or test file names an issue number', async () => {
    const offenders: string[] = [];
    for (const root of ROOTS) {
      for await (const file of filesUnder(root)) {
        const lines = (await readFile(file, 'utf8')).split('\n');
        lines.forEach((line, i) => {
          if (CITATION.test(line)) offenders.push(`${file}:${i + 1}`);
        });
      }
    }
    expect(offenders).toEqual([]);
  });
});
