/**
 * Folders are roles (docs/architecture.md): a role imports the shared homes (domain, platform, the
 * decision log, the read model's shape), never another role. `src/cli` is the composition root and
 * may import everything.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** folder → the top-level folders of src/ it may import (besides itself). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  domain: [],
  platform: ['domain'],
  log: ['domain', 'platform'],
  readModel: ['domain', 'platform'],
  write: ['domain', 'platform', 'log', 'readModel'],
  projections: ['domain', 'platform', 'log', 'readModel'],
  'read-api': ['domain', 'platform', 'log', 'readModel'],
  // The consistency checks (msgx verify, the writer's sentinel) hold the projections to the log:
  // they use the outbox feeder's own rule of which rows a decision implies (projections/decisionOutbox.ts).
  consistency: ['domain', 'platform', 'log', 'readModel', 'projections'],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** The top-level folder of src/ a path lies in ('' for a file directly in src/). */
const folderOf = (absolute: string): string => {
  const parts = relative(SRC, absolute).split(sep);
  return parts.length > 1 ? parts[0]! : '';
};

/** Every relative import of a file, as [importing file, imported path] (static, dynamic, type-only). */
function relativeImports(file: string, text: string): string[] {
  return [...text.matchAll(/\bfrom\s+'(\.[^']+)'|\bimport\s*\(\s*'(\.[^']+)'\s*\)|^\s*import\s+'(\.[^']+)'/gm)]
    .map((m) => resolve(dirname(file), m[1] ?? m[2] ?? m[3] ?? ''));
}

/** "importer → imported" for every import that crosses from one folder into a folder it may not use. */
function violations(files: readonly { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) => {
    const from = folderOf(path);
    const allowed = ALLOWED[from];
    if (allowed === undefined) return []; // src/cli and files directly under src/: the composition root
    return relativeImports(path, text)
      .filter((target) => {
        const to = folderOf(target);
        return to !== from && !allowed.includes(to);
      })
      .map((target) => `${relative(SRC, path)} → ${relative(SRC, target)}`);
  });
}

const files = sources(SRC).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

describe('role boundaries', () => {
  it('knows every folder of src/ (a new folder needs a line in ALLOWED or must be cli)', () => {
    const folders = new Set(files.map((f) => folderOf(f.path)).filter((f) => f !== '' && f !== 'cli'));
    expect([...folders].filter((f) => !(f in ALLOWED))).toEqual([]);
    expect(folders.size).toBeGreaterThanOrEqual(7);
  });

  it('no role imports another role, and the shared homes import no role', () => {
    expect(violations(files)).toEqual([]);
  });

  it('catches an import across roles, static, dynamic or type-only', () => {
    const at = (p: string) => join(SRC, p);
    const sample = [
      { path: at('read-api/sql/x.ts'), text: "import { a } from '../../projections/flightFold.ts';" },
      { path: at('write/pump/x.ts'), text: "const m = await import('../../read-api/readApi.ts');" },
      { path: at('projections/x.ts'), text: "import type { W } from '../write/pump/writeModel.ts';" },
      { path: at('log/x.ts'), text: "import { b } from '../readModel/flightRows.ts';" },
      { path: at('projections/y.ts'), text: "import { c } from '../log/foldLog.ts';\nimport { d } from './projector.ts';" },
      { path: at('cli/x.ts'), text: "import { e } from '../write/pump/pumpService.ts';" },
    ];
    expect(violations(sample)).toEqual([
      'read-api/sql/x.ts → projections/flightFold.ts',
      'write/pump/x.ts → read-api/readApi.ts',
      'projections/x.ts → write/pump/writeModel.ts',
      'log/x.ts → readModel/flightRows.ts',
    ]);
  });
});
