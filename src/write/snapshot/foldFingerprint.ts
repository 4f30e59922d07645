/**
 * The fingerprint of the code that folds the write model (docs/recovery.md "Write-model
 * snapshots"): a snapshot made by other fold code is never used. It is FOLD_VERSION (bumped by
 * hand when the snapshot's format or meaning changes) plus a digest of the TypeScript sources of
 * every module whose code decides what a fold produces. The .ts sources, not the running modules'
 * text: `tsx` and the compiled build (.build/<hash>/, made from the same sources by bin/build.js)
 * then agree, so a snapshot written by `msgx start` serves `msgx verify` run through tsx and back.
 * A comment edited in one of these files changes the fingerprint too: the cost is one start that
 * folds from position 0, never a wrong model.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the snapshot document or the meaning of a folded field changes without a source change below. */
export const FOLD_VERSION = 2;

/** The fold's sources, relative to src/ (the model, evolve and what it calls, the snapshot document). */
const FOLD_SOURCES = [
  'domain/evolve.ts', 'domain/lists.ts', 'domain/fields.ts', 'domain/changes.ts', 'domain/flight.ts', 'domain/archive.ts',
  'domain/reference/state.ts', 'domain/planRequests.ts', 'write/pump/writeModel.ts', 'write/pump/modelFlights.ts',
  'write/snapshot/snapshotCodec.ts', 'platform/lazyMap.ts',
];

/** src/ with its .ts files: beside this module (tsx), or in the checkout a build under .build/<hash>/ was made from. */
function sourceRoot(): string | undefined {
  const tree = fileURLToPath(new URL('../../', import.meta.url)); // …/src/ of the tree this module runs from
  for (const dir of [tree, path.resolve(tree, '../../../src')]) {
    if (existsSync(path.join(dir, FOLD_SOURCES[0]!))) return dir;
  }
  return undefined;
}

function compute(): string {
  const root = sourceRoot();
  const h = createHash('sha256').update(`fold ${FOLD_VERSION}\0`);
  // Without the sources (an installation of the build alone): the compiled modules, prefixed so
  // that such a fingerprint never equals a source one.
  const files = root === undefined ? FOLD_SOURCES.map((f) => fileURLToPath(new URL(`../../${f.replace(/\.ts$/, '.js')}`, import.meta.url))) : FOLD_SOURCES.map((f) => path.join(root, f));
  for (const f of files) h.update(readFileSync(f)).update('\0');
  return `${FOLD_VERSION}:${root === undefined ? 'js:' : ''}${h.digest('hex').slice(0, 20)}`;
}

let cached: string | undefined;

/** This process's fold fingerprint (computed once). */
export function foldFingerprint(): string {
  cached ??= compute();
  return cached;
}
