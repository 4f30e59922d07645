import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Compile msgx once before the tests (bin/build.js), so that the tests that start
 * `node bin/msgx.js` find the build of the current sources instead of each compiling it first.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const res = spawnSync(process.execPath, ['bin/build.js'], { cwd: root, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`bin/build.js failed:\n${res.stdout}${res.stderr}`);
}
