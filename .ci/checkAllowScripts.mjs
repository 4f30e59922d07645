// Every dependency with an install script (package-lock.json: hasInstallScript) must be reviewed:
// approved or denied in package.json's allowScripts (README.md, "Two commands"). npm 12 skips an
// unreviewed one and npm 11 runs it with a notice; either way nobody decided. The lock covers every
// platform's optional packages, so a macOS-only package counts too. Exits 1 and names the ones left.
import { readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));

/** allowScripts' keys as { name, versions }: versions undefined = every version (`pkg`, `pkg@*`). */
const entries = Object.keys(pkg.allowScripts ?? {}).map((key) => {
  const at = key.lastIndexOf('@');
  if (at <= 0) return { name: key, versions: undefined };
  const spec = key.slice(at + 1).trim();
  return { name: key.slice(0, at), versions: spec === '' || spec === '*' ? undefined : spec.split('||').map((v) => v.trim()) };
});

const unreviewed = [];
const unverifiable = [];
for (const [where, p] of Object.entries(lock.packages ?? {})) {
  if (!where || !p.hasInstallScript || p.link) continue;
  const name = p.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const matching = entries.filter((e) => e.name === name && (e.versions === undefined || e.versions.includes(p.version)));
  if (matching.length === 0) unreviewed.push(`${name}@${p.version}`);
  // npm trusts a pinned version only as the lock's registry URL names it: without `resolved` it
  // refuses the approval (and npm 12 skips the script).
  else if (matching.some((e) => e.versions !== undefined) && !p.resolved) unverifiable.push(`${name}@${p.version}`);
}

if (unreviewed.length > 0) {
  console.error(
    `[ci] install scripts neither approved nor denied in package.json's allowScripts:\n  ${unreviewed.join('\n  ')}\n` +
      '[ci] read each script, then: npm install-scripts approve <pkg> (pinned to the version read) or npm install-scripts deny <pkg>',
  );
}
if (unverifiable.length > 0) {
  console.error(
    `[ci] pinned approvals npm cannot verify (package-lock.json has no "resolved" URL for them):\n  ${unverifiable.join('\n  ')}\n` +
      "[ci] an npm with omit-lockfile-registry-resolved set wrote the lock: git checkout package-lock.json, then npm install again (the project's .npmrc keeps the URLs)",
  );
}
if (unreviewed.length + unverifiable.length > 0) process.exit(1);
console.log(`[ci] install scripts: every one in package-lock.json is approved or denied in allowScripts`);
