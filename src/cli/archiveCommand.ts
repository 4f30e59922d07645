import path from 'node:path';
import { parseArgs } from 'node:util';
import { noFaults } from '../platform/faults.ts';
import { withRuntime } from '../platform/runtime.ts';
import { archiveHistory } from '../operations/archive/archiveHistory.ts';
import { parseMonth } from '../log/historyMonths.ts';
import type { Command } from './commands.ts';
import { operatorName } from './operator.ts';
import { UsageError } from './usageError.ts';

export const archiveCommand: Command = {
  summary: 'write the months before YYYY-MM to checksummed files, record it, then drop them: --before YYYY-MM [--dir D]',
  usage: '--before YYYY-MM [--dir DIR] [--operator NAME]',
  help:
    'For each month before --before: its decision_event, inbox_message and proc_state_hst partitions to gzip NDJSON\n' +
    'files (default MSGX_DATA_DIR/archive) with a sha256sum file, read back, recorded as a HistoryArchived decision,\n' +
    'then detached and dropped (docs/operations.md "Archive a month"). Run it again after a crash: it finishes.',
  async run(args, { cfg, log, faults }) {
    const { values } = parseArgs({ args: [...args], options: { before: { type: 'string' }, dir: { type: 'string' }, operator: { type: 'string' } }, strict: true });
    if (values.before === undefined) throw new UsageError('archive needs --before YYYY-MM');
    const before = parseMonth(values.before);
    const dir = path.resolve(values.dir ?? path.join(cfg.dataDir, 'archive'));
    return withRuntime(cfg, log, { poolMax: 2, command: 'archive' }, async (rt) => {
      const done = await archiveHistory({ pool: rt.pool, log, faults: faults ?? noFaults, now: () => rt.clock.now() }, before, dir, operatorName(values.operator));
      for (const m of done) {
        process.stdout.write(`${m.month}: archived (decision ${m.decision}${m.resumed ? ', finished an interrupted run' : ''}): ${m.files.map((f) => f.file).join(', ')}\n`);
      }
      if (done.length === 0) process.stdout.write(`nothing to archive before ${before}\n`);
      return 0;
    });
  },
};
