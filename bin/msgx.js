#!/usr/bin/env node
// Entry for `npx msgx …` and `npm start`: runs msgx compiled to JavaScript (bin/build.js compiles the
// sources on the first start after they changed), or — where the TypeScript compiler is not
// installed — the TypeScript sources through tsx's loader.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { compiledEntry } from './build.js';

// `msgx --version` answers at once, before anything is compiled or loaded.
if (process.argv[2] === '--version' || process.argv[2] === '-V' || process.argv[2] === 'version') {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`msgx ${version} (node ${process.version})\n`);
  process.exit(0);
}

// `msgx start` runs for months with a live set of ~100 MB (10,000 flights): let V8 grow its heap by
// 20 % over what the last full collection kept, instead of by its default factor (up to 4×), which
// left 300 MB of dead heap resident (docs/operations.md, "Memory"). Not a limit: the heap may still
// grow to V8's maximum for the largest plan snapshot. MSGX_HEAP_GROWING_PERCENT overrides it (0: V8's own).
if (process.argv[2] === 'start') {
  const percent = process.env.MSGX_HEAP_GROWING_PERCENT ?? '20';
  if (!/^\d+$/.test(percent)) {
    process.stderr.write(`MSGX_HEAP_GROWING_PERCENT must be a whole number of percent, not '${percent}'\n`);
    process.exit(2);
  }
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

const entry = compiledEntry((line) => process.stderr.write(`${line}\n`));
let main;
if (entry) {
  ({ main } = await import(entry.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
const code = await main(process.argv.slice(2));
// tsx's loader resets process.exitCode on exit, so leave explicitly once stdout has drained.
process.stdout.write('', () => process.exit(code));
