import { parseArgs } from 'node:util';
import { withRuntime } from '../platform/runtime.ts';
import { requestReferenceInput } from '../operations/inputs.ts';
import { requestReferenceAsOperator } from '../operations/requests.ts';
import { NOT_SENT_IN_SHADOW } from '../write/requests/recordShadowRequest.ts';
import type { Command } from './commands.ts';
import { operatorName } from './operator.ts';

export const requestReferenceCommand: Command = {
  summary: 'ask AODB for reference data (RQRD via COUTMSGS, one per kind): [--kind AIRL,ARPT,…] (default: all 23)',
  usage: '[--kind AIRL,ARPT,…] [--operator NAME]',
  help:
    'Registers one reference request per kind (default: all 23) and sends each as an RQRD row to COUTMSGS;\nthe running writer retries a send that fails and marks a request DONE when that kind\'s RESP is decided\n(EXPIRED after MSGX_REQUEST_EXPIRE_MS).\n' +
    'Audited as one ReferenceRequested decision naming the operator (--operator, default user@host).',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({ args: [...args], options: { kind: { type: 'string' }, operator: { type: 'string' } }, strict: true });
    // `--kind AIRL,ARPT` is the field `kinds` (upper-cased, in the order given, once each; default all 23).
    const { kinds } = requestReferenceInput({ kinds: values.kind });
    return withRuntime(cfg, log, { poolMax: 2, command: 'request-reference' }, async (rt) => {
      const r = await requestReferenceAsOperator({ pool: rt.pool, mailbox: rt.mailbox, clock: rt.clock, cfg, log }, kinds, operatorName(values.operator));
      if (r.shadow) {
        process.stdout.write(`reference request for ${kinds.join(',')} recorded as decision ${r.position}, NOT sent\n(${NOT_SENT_IN_SHADOW})\n`);
        return 0;
      }
      const lines = r.requests.map((q) =>
        q.send?.sent
          ? `${q.kind}: request ${q.mgid} (req ${q.reqId}) sent as RQRD to COUTMSGS id ${q.send.coutmsgsId}; WAITING for ${q.kind}/RESP`
          : `${q.kind}: request ${q.mgid} (req ${q.reqId}) not sent yet (${q.send?.sent === false ? q.send.error : 'busy'}); REGISTERED — the running writer retries it`,
      );
      lines.push(`audited as decision ReferenceRequested at position ${r.position}`);
      process.stdout.write(lines.join('\n') + '\n');
      return 0;
    });
  },
};
