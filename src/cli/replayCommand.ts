import { parseArgs } from 'node:util';
import { withRuntime } from '../platform/runtime.ts';
import { replayInput } from '../operations/inputs.ts';
import { replay } from '../operations/replay.ts';
import type { Command } from './commands.ts';
import { operatorName } from './operator.ts';

export const replayCommand: Command = {
  summary: 'move PARKED/FAILED/DEAD messages back to PENDING: --class CODEC_ERROR|UNSUPPORTED|INFRA|EXHAUSTED [--ids 1,2] [--since ISO]',
  usage: '--class CODEC_ERROR|UNSUPPORTED|INFRA|EXHAUSTED [--ids 1,2] [--since ISO] [--operator NAME]',
  help:
    'Moves the selected PARKED, FAILED and DEAD(EXHAUSTED) messages back to PENDING in one transaction, one\n' +
    'ReplayRequested decision each, naming the operator (--operator, default user@host). MALFORMED is never\n' +
    'replayed. Safe while msgx runs: the pump picks them up in id order.',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({
      args: [...args],
      options: { class: { type: 'string' }, ids: { type: 'string' }, since: { type: 'string' }, operator: { type: 'string' } },
      strict: true,
    });
    const input = replayInput(values);
    const { errorClass, ids } = input;
    return withRuntime(cfg, log, { poolMax: 2, command: 'replay' }, async (rt) => {
      const done = await replay(rt.pool, rt.clock, { ...input, requestedBy: operatorName(values.operator) });
      if (done.length === 0) {
        process.stdout.write(`nothing to replay for class ${errorClass}${ids ? ` among ids ${ids.join(',')}` : ''}\n`);
        return 0;
      }
      for (const r of done) {
        process.stdout.write(
          `replayed ${r.msgId}: ${r.fromState}(${r.errorClass}${r.causeClass ? `/${r.causeClass}` : ''}) after ${r.attempts} attempts -> PENDING ` +
            `(ReplayRequested at position ${r.position})\n`,
        );
      }
      process.stdout.write(`${done.length} message(s) back to PENDING; the running pump picks them up in id order\n`);
      return 0;
    });
  },
};
