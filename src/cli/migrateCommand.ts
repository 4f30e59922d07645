import { parseArgs } from 'node:util';
import { openRuntime } from '../platform/runtime.ts';
import type { Command } from './commands.ts';

export const migrateCommand: Command = {
  summary: 'apply pending PostgreSQL migrations and exit',
  usage: '[--force]',
  help: 'Applies pending migrations (each in its own transaction) and exits. Refuses a database that holds\ntables that are not msgx\'s (or PostgreSQL\'s maintenance database) unless --force.',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({ args: [...args], options: { force: { type: 'boolean', default: false } }, strict: true });
    const rt = await openRuntime(cfg, log, { migrate: true, poolMax: 2, command: 'migrate', force: values.force ?? false });
    await rt.close();
    process.stdout.write('migrations up to date\n');
    return 0;
  },
};
