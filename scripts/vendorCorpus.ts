/**
 * The conformance corpus is handed out with the contract documents, in a folder beside the
 * repository (UPSTREAM_CORPUS below). The tests read a copy vendored in `test/corpus/`, so a
 * clone stands alone; this script makes and checks that copy.
 *
 *   npm run corpus:vendor          copy the upstream corpus over test/corpus/ (removing stale files)
 *   npm run corpus:check           exit 1 when test/corpus/ differs from the upstream corpus
 *
 * MSGX_UPSTREAM_CORPUS names another upstream folder. When there is no upstream folder, the check
 * reports `absent` and passes: the vendored copy is then the corpus.
 */
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
export const VENDORED_CORPUS = path.join(REPO_ROOT, 'test', 'corpus');
export const UPSTREAM_CORPUS = process.env.MSGX_UPSTREAM_CORPUS ?? path.join(REPO_ROOT, '..', 'shared', 'corpus');

export type CorpusComparison =
  | { readonly status: 'absent' }
  | { readonly status: 'current'; readonly files: number }
  | { readonly status: 'stale'; readonly differences: readonly string[] };

/** Every file below `dir`, as sorted paths relative to it with forward slashes. */
async function filesBelow(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

export async function compareCorpus(upstream = UPSTREAM_CORPUS, vendored = VENDORED_CORPUS): Promise<CorpusComparison> {
  if (!existsSync(upstream)) return { status: 'absent' };
  const [want, have] = await Promise.all([filesBelow(upstream), filesBelow(vendored)]);
  const haveSet = new Set(have);
  const differences: string[] = [];
  for (const f of want) {
    if (!haveSet.has(f)) differences.push(`missing ${f}`);
    else if (!(await readFile(path.join(upstream, f))).equals(await readFile(path.join(vendored, f)))) differences.push(`differs ${f}`);
  }
  const wantSet = new Set(want);
  for (const f of have) if (!wantSet.has(f)) differences.push(`extra ${f}`);
  return differences.length === 0 ? { status: 'current', files: want.length } : { status: 'stale', differences };
}

export async function vendorCorpus(upstream = UPSTREAM_CORPUS, vendored = VENDORED_CORPUS): Promise<number> {
  const files = await filesBelow(upstream);
  if (files.length === 0) throw new Error(`no corpus at ${upstream}`);
  await rm(vendored, { recursive: true, force: true });
  for (const f of files) {
    const to = path.join(vendored, f);
    await mkdir(path.dirname(to), { recursive: true });
    await copyFile(path.join(upstream, f), to);
    await chmod(to, 0o644); // upstream files are read-only
  }
  return files.length;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const c = await compareCorpus();
    process.stdout.write(
      c.status === 'stale' ? `test/corpus is stale (npm run corpus:vendor):\n  ${c.differences.join('\n  ')}\n` : `${c.status}\n`,
    );
    process.exitCode = c.status === 'stale' ? 1 : 0;
  } else {
    process.stdout.write(`copied ${await vendorCorpus()} files into test/corpus\n`);
  }
}
