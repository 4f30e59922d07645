import { parseArgs } from 'node:util';
import { noFaults } from '../platform/faults.ts';
import { withRuntime } from '../platform/runtime.ts';
import { restoreMonth } from '../operations/archive/restoreMonth.ts';
import type { Command } from './commands.ts';
import { operatorName } from './operator.ts';
import { UsageError } from './usageError.ts';

export const restoreCommand: Command = {
  summary: 'bring an archived month back from its files: FILE (msgx-history-YYYY-MM.sha256) [--operator NAME]',
  usage: 'FILE [--operator NAME]',
  help:
    'Checks each file of the month against its sha256sum file and history_archive, then in one transaction creates the\n' +
    'month\'s partitions, loads them, records a HistoryRestored decision (docs/operations.md "Archive a month").\n' +
    'A month already in the database is left as it is.',
  async run(args, { cfg, log, faults }) {
    const { values, positionals } = parseArgs({ args: [...args], options: { operator: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new UsageError('restore needs one FILE: the month\'s msgx-history-YYYY-MM.sha256');
    return withRuntime(cfg, log, { poolMax: 2, command: 'restore' }, async (rt) => {
      const r = await restoreMonth({ pool: rt.pool, log, faults: faults ?? noFaults, now: () => rt.clock.now() }, positionals[0]!, operatorName(values.operator));
      const rows = r.files.map((f) => `${f.table} ${f.rows}`).join(', ');
      process.stdout.write(r.decision === null ? `${r.month}: already in the database (${rows}); nothing done\n` : `${r.month}: restored (decision ${r.decision}): ${rows}\n`);
      return 0;
    });
  },
};
