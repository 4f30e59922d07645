import { openRuntime } from '../platform/runtime.ts';
import type { Command } from './commands.ts';

export const migrateCommand: Command = {
  summary: 'apply pending PostgreSQL migrations and exit',
  async run(_args, { cfg, log }) {
    const rt = await openRuntime(cfg, log, { migrate: true, poolMax: 2 });
    await rt.close();
    process.stdout.write('migrations up to date\n');
    return 0;
  },
};
