import os from 'node:os';
import { parseArgs } from 'node:util';
import { commandMode } from '../platform/runMode.ts';
import { openRuntime } from '../platform/runtime.ts';
import { NOT_SENT_IN_SHADOW, recordShadowRequest } from '../write/requests/recordShadowRequest.ts';
import { describeWindow, requestPlan } from '../write/requests/requestPlan.ts';
import { parseWindowTime } from '../write/requests/requestWindow.ts';
import type { Command } from './commands.ts';
import { UsageError } from './usageError.ts';

export const requestPlanCommand: Command = {
  summary: 'ask AODB for the flight plan of a window (RQFD via COUTMSGS): --from ISO --to ISO (no zone = airport time)',
  usage: '--from ISO --to ISO',
  help: 'Registers a plan request for the window and sends it as an RQFD row to COUTMSGS; the running writer\nretries a send that fails and tracks the answer (SCHD/RESP). Times without a zone are airport time.',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({ args: [...args], options: { from: { type: 'string' }, to: { type: 'string' } }, strict: true });
    const bound = (name: 'from' | 'to'): Date => {
      const text = values[name];
      if (text === undefined) throw new UsageError(`--${name} is required (ISO-8601, e.g. 2025-03-15T00:00; no zone = ${cfg.airportTz})`);
      const at = parseWindowTime(text, cfg.airportTz);
      if (!at) throw new UsageError(`--${name} must be an ISO-8601 date-time (got '${text}')`);
      return at;
    };
    const from = bound('from');
    const to = bound('to');
    if (to.getTime() <= from.getTime()) throw new UsageError('--to must be after --from');

    const rt = await openRuntime(cfg, log, { poolMax: 2, command: 'request-plan' });
    try {
      if ((await commandMode(rt.pool, cfg)).shadow) {
        // The database runs as shadow: recorded as a decision, never sent (docs/operations.md "Shadow run").
        const rec = await recordShadowRequest(rt.pool, { from, to, now: rt.clock.now(), requestedBy: `${os.userInfo().username}@${os.hostname()}` });
        process.stdout.write(
          `plan request for ${describeWindow(from, to, cfg.airportTz)} recorded as decision ${rec!.position}, NOT sent\n` +
            `(${NOT_SENT_IN_SHADOW})\n`,
        );
        return 0;
      }
      const r = await requestPlan({ pool: rt.pool, mailbox: rt.mailbox, clock: rt.clock, cfg, log }, from, to);
      const lines = [`plan request ${r.mgid} (req ${r.reqId}) for ${describeWindow(from, to, cfg.airportTz)}`];
      if (r.send?.sent) {
        lines.push(`sent as RQFD to COUTMSGS id ${r.send.coutmsgsId} (ROUTINGID ${cfg.coutmsgsRoutingId}); WAITING for a SCHD/RESP`);
      } else {
        lines.push(`not sent yet (${r.send?.sent === false ? r.send.error : 'busy'}); REGISTERED — the running writer retries it`);
      }
      process.stdout.write(lines.join('\n') + '\n');
      return 0;
    } finally {
      await rt.close();
    }
  },
};
