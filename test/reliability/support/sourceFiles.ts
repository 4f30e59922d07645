/** The repository's TypeScript sources, read for the static checks (SQL parameterisation, grants). */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface SourceFile {
  /** Path relative to the repository root, with forward slashes. */
  readonly file: string;
  readonly text: string;
}

/** Every `.ts` file under `dir` (relative to the repository root), sorted by path. */
export async function sourceFiles(dir: string): Promise<SourceFile[]> {
  const root = path.join(REPO_ROOT, dir);
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
  return Promise.all(
    files.map(async (f) => ({ file: path.relative(REPO_ROOT, f).split(path.sep).join('/'), text: await readFile(f, 'utf8') })),
  );
}
