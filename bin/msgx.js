#!/usr/bin/env node
// Entry for `npx msgx …` and `npm start`: runs the TypeScript sources through tsx's loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
// tsx's loader resets process.exitCode on exit, so leave explicitly once stdout has drained.
process.stdout.write('', () => process.exit(code));
