import { parseArgs } from 'node:util';
import { withRuntime } from '../platform/runtime.ts';
import { replayDeliveriesInput } from '../operations/inputs.ts';
import { replayDeadDeliveries } from '../operations/replayDeliveries.ts';
import type { Command } from './commands.ts';
import { operatorName } from './operator.ts';

export const replayDeliveriesCommand: Command = {
  summary: 'DEAD deliveries back to PENDING: --target KAFKA_MSG|KAFKA_SCHD|COUTMSGS|AIDX [--ids 1,2]',
  usage: '--target KAFKA_MSG|KAFKA_SCHD|COUTMSGS|AIDX [--ids 1,2] [--operator NAME]',
  help: 'Moves DEAD deliveries of one target back to PENDING (attempts reset), audited as one\nDeliveryReplayRequested decision naming the operator (--operator, default user@host).',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({
      args: [...args],
      options: { target: { type: 'string' }, ids: { type: 'string' }, operator: { type: 'string' } },
      strict: true,
    });
    const input = replayDeliveriesInput(values);
    const { target, eventIds } = input;

    return withRuntime(cfg, log, { poolMax: 2, command: 'replay-deliveries' }, async (rt) => {
      const res = await replayDeadDeliveries(rt.pool, rt.clock, { ...input, requestedBy: operatorName(values.operator) });
      const lines: string[] = [];
      if (res.replayed.length === 0) lines.push(`no DEAD ${target} deliveries${eventIds ? ' among the given ids' : ''}; nothing replayed`);
      else {
        lines.push(`replayed ${res.replayed.length} ${target} deliveries (DEAD -> PENDING, attempts reset): ${res.replayed.join(', ')}`);
        lines.push(`audited as decision DeliveryReplayRequested at position ${res.position}`);
      }
      if (res.notDead.length > 0) lines.push(`not DEAD ${target} deliveries, left alone: ${res.notDead.join(', ')}`);
      process.stdout.write(lines.join('\n') + '\n');
      return 0;
    });
  },
};
