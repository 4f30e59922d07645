/**
 * Folders are roles (docs/architecture.md): a role imports the shared homes (domain, platform, the
 * decision log, the read model's shape), never another role. `src/cli` is the composition root and
 * may import everything.
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleSpecifiers, sourceFiles, SRC } from './support/sourceModules.ts';

/** folder → the top-level folders of src/ it may import (besides itself). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  domain: [],
  platform: ['domain'],
  log: ['domain', 'platform'],
  // The read model's status reports its lag behind the log's head (src/log/head.ts).
  readModel: ['domain', 'platform', 'log'],
  write: ['domain', 'platform', 'log', 'readModel'],
  projections: ['domain', 'platform', 'log', 'readModel'],
  'read-api': ['domain', 'platform', 'log', 'readModel'],
  // The consistency checks (msgx verify, the writer's sentinel) hold the projections to the log:
  // they use the outbox feeder's own rule of which rows a decision implies (projections/decisionOutbox.ts).
  consistency: ['domain', 'platform', 'log', 'readModel', 'projections'],
  // The operator actions (docs/architecture.md "src/operations"): each validates its input, records
  // its audited decision and its progress, and runs the write or projection step it names. The CLI
  // commands and the /admin routes are adapters over it; it never imports the read API.
  operations: ['domain', 'platform', 'log', 'readModel', 'write', 'projections'],
};

/** The top-level folder of src/ a path lies in ('' for a file directly in src/). */
const folderOf = (absolute: string): string => {
  const parts = relative(SRC, absolute).split(sep);
  return parts.length > 1 ? parts[0]! : '';
};

/** Every module a file names by a relative path (any form: support/sourceModules.ts), resolved. */
function relativeImports(file: string, text: string): string[] {
  return moduleSpecifiers(text)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec));
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

const files = sourceFiles();

describe('role boundaries', () => {
  it('knows every folder of src/ (a new folder needs a line in ALLOWED or must be cli)', () => {
    const folders = new Set(files.map((f) => folderOf(f.path)).filter((f) => f !== '' && f !== 'cli'));
    expect([...folders].filter((f) => !(f in ALLOWED))).toEqual([]);
    expect(folders.size).toBeGreaterThanOrEqual(7);
  });

  it('no role imports another role, and the shared homes import no role', () => {
    expect(violations(files)).toEqual([]);
  });

  it('catches an import across roles in every form: static, type-only, re-export, bare, dynamic, require, worker', () => {
    const at = (p: string) => join(SRC, p);
    const sample = [
      { path: at('read-api/sql/x.ts'), text: "import { a } from '../../projections/flightFold.ts';" },
      { path: at('write/pump/x.ts'), text: "const m = await import('../../read-api/readApi.ts');" },
      { path: at('write/pump/y.ts'), text: 'const m = await import(\n  "../../read-api/graphql/createYoga.ts"\n);' },
      { path: at('projections/x.ts'), text: "import type { W } from '../write/pump/writeModel.ts';" },
      { path: at('projections/z.ts'), text: 'import {\n  type W,\n  x,\n} from "../write/pump/writeModel.ts";' },
      { path: at('log/x.ts'), text: "import { b } from '../readModel/flightRows.ts';" },
      { path: at('read-api/y.ts'), text: "export { f } from '../write/pump/pumpService.ts';\nexport * from '../projections/runBatch.ts';" },
      { path: at('read-api/z.ts'), text: 'export type { P } from "../projections/projectionStatus.ts";\nimport \'../write/side.ts\';' },
      { path: at('write/z.ts'), text: 'const r = require(`../projections/cjs.js`);' },
      { path: at('projections/w.ts'), text: "startTsWorker(new URL('../write/redecide/pageWorker.ts', import.meta.url), {});" },
      { path: at('projections/v.ts'), text: "startTsWorker(moduleBeside('../read-api/worker', import.meta.url), {});" },
      { path: at('read-api/pages/console/x.js'), text: "import { h } from '../../../projections/x.js';" },
      { path: at('projections/y.ts'), text: "import { c } from '../log/foldLog.ts';\nimport { d } from './projector.ts';" },
      { path: at('read-api/graphql/x.ts'), text: "readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');" },
      { path: at('cli/x.ts'), text: "import { e } from '../write/pump/pumpService.ts';" },
    ];
    expect(violations(sample)).toEqual([
      'read-api/sql/x.ts → projections/flightFold.ts',
      'write/pump/x.ts → read-api/readApi.ts',
      'write/pump/y.ts → read-api/graphql/createYoga.ts',
      'projections/x.ts → write/pump/writeModel.ts',
      'projections/z.ts → write/pump/writeModel.ts',
      'log/x.ts → readModel/flightRows.ts',
      'read-api/y.ts → write/pump/pumpService.ts',
      'read-api/y.ts → projections/runBatch.ts',
      'read-api/z.ts → projections/projectionStatus.ts',
      'read-api/z.ts → write/side.ts',
      'write/z.ts → projections/cjs.js',
      'projections/w.ts → write/redecide/pageWorker.ts',
      'projections/v.ts → read-api/worker',
      'read-api/pages/console/x.js → projections/x.js',
    ]);
  });
});
