/**
 * The conformance corpus is handed out with the contract documents, in a folder beside the
 * repository (UPSTREAM_CORPUS below). The tests read a copy vendored in `test/corpus/`, so a
 * clone stands alone; this script makes and checks that copy.
 *
 *   npm run corpus:vendor          copy the upstream corpus over test/corpus/ (removing stale files)
 *   npm run corpus:check           exit 1 when test/corpus/ differs from the upstream corpus
 *
 * MSGX_UPSTREAM_CORPUS (or `--upstream DIR`) names another upstream folder. When there is no
 * upstream folder, the check says it skipped and passes: the vendored copy is then the corpus.
 *
 * The copy is exact but for one thing: the corpus's Markdown points at the contract documents
 * beside it (`../spec/interface.md`), which are not in this repository; the copy points at the
 * project's summaries of them in docs/contract/ instead (`localLinks`).
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
export const VENDORED_CORPUS = path.join(REPO_ROOT, 'test', 'corpus');
export const UPSTREAM_CORPUS = process.env.MSGX_UPSTREAM_CORPUS ?? path.join(REPO_ROOT, '..', 'shared', 'corpus');

/** The summary in docs/contract/ of an upstream spec document (the system design is design.md). */
const summaryOf = (name: string): string => (name.toLowerCase() === 'system' ? 'design' : name.toLowerCase());

/** The corpus's links to the upstream spec folder, pointed at docs/contract/ (summaries of the same documents). */
export function localLinks(file: string, content: Buffer): Buffer {
  if (!file.endsWith('.md')) return content;
  const depth = file.split('/').length - 1; // test/corpus/<file>: up to the repo root, then docs/contract
  const toDocs = '../'.repeat(depth + 2) + 'docs/contract/';
  return Buffer.from(content.toString('utf8').replace(/\.\.\/spec\/([A-Za-z]+)\.md/g, (_, name: string) => `${toDocs}${summaryOf(name)}.md`));
}

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
    else if (!localLinks(f, await readFile(path.join(upstream, f))).equals(await readFile(path.join(vendored, f)))) differences.push(`differs ${f}`);
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
    await writeFile(to, localLinks(f, await readFile(path.join(upstream, f))), { mode: 0o644 });
    await chmod(to, 0o644); // an existing file keeps its mode on write
  }
  return files.length;
}

/** What `--check` prints for a comparison with `upstream`. */
export function describeComparison(c: CorpusComparison, upstream: string): string {
  switch (c.status) {
    case 'absent':
      return `skipped: no upstream corpus at ${upstream} (test/corpus is the corpus)\n`;
    case 'current':
      return `current: test/corpus equals ${upstream} (${c.files} files)\n`;
    case 'stale':
      return `test/corpus is stale against ${upstream} (npm run corpus:vendor):\n  ${c.differences.join('\n  ')}\n`;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--upstream');
  const upstream = at >= 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]!) : UPSTREAM_CORPUS;
  if (process.argv.includes('--check')) {
    const c = await compareCorpus(upstream);
    process.stdout.write(describeComparison(c, upstream));
    process.exitCode = c.status === 'stale' ? 1 : 0;
  } else {
    process.stdout.write(`copied ${await vendorCorpus(upstream)} files into test/corpus\n`);
  }
}
