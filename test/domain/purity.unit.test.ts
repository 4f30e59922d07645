/** src/domain stays a pure core: no database/network packages, no Node I/O, no clock. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DOMAIN = fileURLToPath(new URL('../../src/domain/', import.meta.url));
const ALLOWED_PACKAGES = new Set(['fast-xml-parser', 'zod']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

const files = sources(DOMAIN).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

describe('src/domain purity', () => {
  it('imports only relative modules, fast-xml-parser and zod', () => {
    const bad = files.flatMap(({ path, text }) =>
      [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)|\brequire\(\s*'([^']+)'/g)]
        .map((m) => m[1] ?? m[2] ?? m[3] ?? '')
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
