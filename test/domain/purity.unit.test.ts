/** src/domain stays a pure core: no database/network packages, no Node I/O, no clock. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleSpecifiers, sourceFiles, SRC } from './support/sourceModules.ts';

const ALLOWED_PACKAGES = new Set(['fast-xml-parser', 'zod']);

const files = sourceFiles(join(SRC, 'domain'));

describe('src/domain purity', () => {
  it('imports only relative modules, fast-xml-parser and zod', () => {
    const bad = files.flatMap(({ path, text }) =>
      moduleSpecifiers(text)
        .filter((spec) => !spec.startsWith('.') && !ALLOWED_PACKAGES.has(spec))
        .map((spec) => `${path}: ${spec}`));
    expect(files.length).toBeGreaterThan(10);
    expect(bad).toEqual([]);
  });

  it('reads no clock, no environment, no randomness', () => {
    const bad = files.filter(({ text }) => /Date\.now\(|new Date\(\)|process\.env|Math\.random\(|performance\.now\(/.test(text));
    expect(bad.map((f) => f.path)).toEqual([]);
  });

  it('has no barrel index', () => {
    expect(files.some(({ path }) => path.endsWith('/index.ts'))).toBe(false);
  });
});
