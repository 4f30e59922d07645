import { parseArgs } from 'node:util';
import { withRuntime } from '../platform/runtime.ts';
import { NOT_SENT_IN_SHADOW } from '../write/requests/recordShadowRequest.ts';
import { requestPlanInput } from '../operations/inputs.ts';
import { requestPlanAsOperator } from '../operations/requests.ts';
import { describeWindow } from '../write/requests/requestPlan.ts';
import type { Command } from './commands.ts';
import { operatorName } from './operator.ts';

export const requestPlanCommand: Command = {
  summary: 'ask AODB for the flight plan of a window (RQFD via COUTMSGS): --from ISO --to ISO (no zone = airport time)',
  usage: '--from ISO --to ISO [--operator NAME]',
  help:
    'Registers a plan request for the window and sends it as an RQFD row to COUTMSGS; the running writer\n' +
    'retries a send that fails and tracks the answer (SCHD/RESP). Times without a zone are airport time.\n' +
    'Audited as a PlanRequested decision naming the operator (--operator, default user@host).',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({ args: [...args], options: { from: { type: 'string' }, to: { type: 'string' }, operator: { type: 'string' } }, strict: true });
    const { from, to } = requestPlanInput(values, cfg.airportTz);

    return withRuntime(cfg, log, { poolMax: 2, command: 'request-plan' }, async (rt) => {
      const r = await requestPlanAsOperator({ pool: rt.pool, mailbox: rt.mailbox, clock: rt.clock, cfg, log }, from, to, operatorName(values.operator));
      if (r.shadow) {
        // The database runs as shadow: recorded as a decision, never sent (docs/operations.md "Shadow run").
        process.stdout.write(
          `plan request for ${describeWindow(from, to, cfg.airportTz)} recorded as decision ${r.position}, NOT sent\n` +
            `(${NOT_SENT_IN_SHADOW})\n`,
        );
        return 0;
      }
      const lines = [`plan request ${r.mgid} (req ${r.reqId}) for ${describeWindow(from, to, cfg.airportTz)}, audited as decision ${r.position}`];
      if (r.send?.sent) {
        lines.push(`sent as RQFD to COUTMSGS id ${r.send.coutmsgsId} (ROUTINGID ${cfg.coutmsgsRoutingId}); WAITING for a SCHD/RESP`);
      } else {
        lines.push(`not sent yet (${r.send?.sent === false ? r.send.error : 'busy'}); REGISTERED — the running writer retries it`);
      }
      process.stdout.write(lines.join('\n') + '\n');
      return 0;
    });
  },
};
