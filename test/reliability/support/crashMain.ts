/**
 * The crash matrix's entry point: `msgx <args>` as bin/msgx.js runs it, with the killing fault
 * port of crashFaults.ts installed when `--crash-at <point>:<n>` comes first. Production code
 * reads no switch for this: the port is handed to main(), which hands it to the runtime.
 *
 *   node --import tsx test/reliability/support/crashMain.ts [--crash-at <point>:<n>] start --standby
 */
import { main } from '../../../src/cli/main.ts';
import { CRASH_AT_OPTION, killingFaults, parseCrashAt } from './crashFaults.ts';

const argv = process.argv.slice(2);
const armed = argv[0] === CRASH_AT_OPTION ? parseCrashAt(argv[1] ?? '') : null;
const code = await main(armed ? argv.slice(2) : argv, armed ? { faults: killingFaults(armed) } : {});
// As bin/msgx.js: tsx's loader resets process.exitCode on exit, so leave once stdout has drained.
process.stdout.write('', () => process.exit(code));
