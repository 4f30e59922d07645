// msgx compiled to JavaScript: `node bin/msgx.js` runs the build of the current sources, building it
// first when there is none (the first start after a checkout or an edit). Plain JavaScript, no
// dependencies but the TypeScript compiler, so that it runs before anything is compiled.
//
// Why: running the TypeScript sources through tsx's loader costs about 55 MB of memory (a loader
// thread with its own heap, the compiled sources held twice) and start-up time.
//
// Layout: .build/<hash>/ holds src/**/*.js as tsc emits them (tsconfig.build.json, the same
// layout as the sources, so every path a module resolves from import.meta.url — ../../migrations,
// ./schema.graphql, the console's files — is where it is next to the sources: those files are
// symbolic links to them). <hash> is a digest of everything the output is made from, so a changed
// source means a new build; a build is written to a temporary folder and renamed into place, so
// concurrent starts never see half of one. The two newest builds are kept.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUILDS = path.join(ROOT, '.build');
const KEEP = 2;
/** What the output is made from (beside src/ and migrations/). */
const CONFIG_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin/build.js'];

function* filesUnder(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* filesUnder(p);
    else if (e.isFile()) yield p;
  }
}

/** The sources: every file under src/ and migrations/, relative to the root. */
function sources() {
  return [...filesUnder(path.join(ROOT, 'src')), ...filesUnder(path.join(ROOT, 'migrations'))].map((f) => path.relative(ROOT, f));
}

function digest(files) {
  const h = createHash('sha256');
  for (const f of [...CONFIG_FILES, ...files]) {
    h.update(f).update('\0').update(readFileSync(path.join(ROOT, f))).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

/** The TypeScript compiler's command line script, or undefined when it is not installed. */
function compiler() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

function build(files, dir, tsc) {
  const tmp = path.join(BUILDS, `.tmp-${process.pid}-${Date.now()}`);
  try {
    const res = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', tmp], { cwd: ROOT, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`tsc failed (${res.status ?? res.signal}):\n${res.stdout}${res.stderr}`);
    // Everything that is not compiled (migrations, GraphQL schemas, the console's files): links.
    for (const f of files.filter((f) => !f.endsWith('.ts'))) {
      const target = path.join(tmp, f);
      mkdirSync(path.dirname(target), { recursive: true });
      // Relative: .build/<tmp> and .build/<hash> are at the same depth.
      symlinkSync(path.relative(path.dirname(target), path.join(ROOT, f)), target);
    }
    writeFileSync(path.join(tmp, 'COMPLETE'), `${new Date().toISOString()}\n`);
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // Another start built the same sources meanwhile: use that one.
      if (!existsSync(path.join(dir, 'COMPLETE'))) throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Remove all but the KEEP newest builds (and temporary folders of starts that died). */
function prune(current) {
  const dirs = readdirSync(BUILDS)
    .filter((d) => d !== current && (d.startsWith('.tmp-') || /^[0-9a-f]{16}$/.test(d))) // builds only, not the stamp
    .map((d) => ({ d, t: statSync(path.join(BUILDS, d)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  const hour = Date.now() - 3600_000;
  for (const [i, { d, t }] of dirs.entries()) {
    const stale = d.startsWith('.tmp-') ? t < hour : i >= KEEP - 1;
    if (stale) rmSync(path.join(BUILDS, d), { recursive: true, force: true });
  }
}

/**
 * A digest of the files' metadata (path, size, inode, modification and change times): equal
 * metadata means equal contents, since any write changes the change time (ctime), which no tool
 * can set back. It lets a start skip reading and hashing every source (docs/scaling.md "Restart,
 * takeover and stop").
 */
function statDigest(files) {
  const h = createHash('sha256');
  for (const f of [...CONFIG_FILES, ...files]) {
    const st = statSync(path.join(ROOT, f), { bigint: true });
    h.update(`${f}\0${st.size}\0${st.ino}\0${st.mtimeNs}\0${st.ctimeNs}\0`);
  }
  return h.digest('hex');
}

const STAMP = path.join(BUILDS, 'stamp.json');

/** The content digest of `files`: from the stamp when their metadata is as it was, else computed (and stamped). */
function currentHash(files) {
  const stat = statDigest(files);
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    if (stamp.stat === stat && typeof stamp.hash === 'string') return { hash: stamp.hash, stamp: () => undefined };
  } catch {
    // none yet, or unreadable: computed below
  }
  const hash = digest(files);
  // Written once the build exists (a stamp never names a hash that was not built from these files).
  return { hash, stamp: () => writeAtomically(STAMP, JSON.stringify({ stat, hash })) };
}

function writeAtomically(file, text) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true }); // a read-only install: the next start hashes again
  }
}

/**
 * The URL of the compiled entry module (src/cli/main.js) of the current sources, building it if
 * needed; undefined when the TypeScript compiler is not installed (then the caller runs the sources
 * through tsx). `say` reports a build being made.
 */
export function compiledEntry(say = () => undefined) {
  const files = sources();
  const { hash, stamp } = currentHash(files);
  const dir = path.join(BUILDS, hash);
  if (!existsSync(path.join(dir, 'COMPLETE'))) {
    const tsc = compiler();
    if (tsc === undefined) return undefined;
    mkdirSync(BUILDS, { recursive: true });
    say(`msgx: compiling the sources (first start since they changed) into .build/${hash} …`);
    build(files, dir, tsc);
    prune(hash);
  }
  stamp();
  return new URL(`file://${path.join(dir, 'src/cli/main.js')}`);
}

// `node bin/build.js`: build now (npm run build, the prepare script).
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const entry = compiledEntry((line) => process.stderr.write(`${line}\n`));
  process.stderr.write(entry ? `msgx build: ${fileURLToPath(entry)}\n` : 'msgx build: TypeScript is not installed; msgx runs its sources through tsx\n');
}
