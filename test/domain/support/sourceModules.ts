/**
 * The modules of src/ as the architecture tests read them (purity, role imports, import cycles):
 * each file's text, and every module it names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** Every module below `dir`: TypeScript, and the JavaScript served to the browser (console pages). */
export function sourceFiles(dir = SRC): SourceFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.[cm]?[jt]sx?$/.test(e.name)
        ? [{ path: join(dir, e.name), text: readFileSync(join(dir, e.name), 'utf8') }]
        : []);
}

/** A module name in quotes; an expression (import(), require()) may be a template literal without placeholders. */
const SPEC = String.raw`(['"])([^'"\n]+)\1`;
const EXPR_SPEC = String.raw`(['"\`])([^'"\`$\n]+)\1`;

/**
 * Every way a module names another: `import … from` and `export … from` (type-only and
 * re-exports too), a bare `import '…'`, `import(…)`, `require(…)`, a worker's
 * `new URL('./….ts' or '….js', import.meta.url)` and tsWorker's `moduleBeside('…', import.meta.url)`
 * (a module beside the caller).
 */
const FORMS: readonly RegExp[] = [
  String.raw`\bfrom\s*${SPEC}`,
  String.raw`^\s*import\s*${SPEC}`,
  String.raw`\bimport\s*\(\s*${EXPR_SPEC}`,
  String.raw`\brequire\s*\(\s*${EXPR_SPEC}`,
  String.raw`\bnew\s+URL\s*\(\s*(['"\`])(\.[^'"\`$\n]*\.[cm]?[jt]sx?)\1\s*,\s*import\.meta\.url`,
].map((form) => new RegExp(form, 'gm'));
const BESIDE = /\bmoduleBeside\s*\(\s*(['"`])([^'"`$\n]+)\1/g;

/** The module names a text uses, as written: packages ('pg', 'node:fs') and relative paths. */
export function moduleSpecifiers(text: string): string[] {
  return [
    ...FORMS.flatMap((form) => [...text.matchAll(form)].map((m) => m[2]!)),
    ...[...text.matchAll(BESIDE)].map((m) => `./${m[2]}`),
  ];
}
