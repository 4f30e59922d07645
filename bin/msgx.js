#!/usr/bin/env node
// Entry for `npx msgx …` and `npm start`: runs msgx compiled to JavaScript (bin/build.js compiles the
// sources on the first start after they changed), or — where the TypeScript compiler is not
// installed — the TypeScript sources through tsx's loader.
import { compiledEntry } from './build.js';

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
