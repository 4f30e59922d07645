import { parseArgs } from 'node:util';
import { REFERENCE_KIND_NAMES } from '../domain/reference/kinds.ts';
import { openRuntime } from '../platform/runtime.ts';
import { requestReference } from '../write/requests/requestReference.ts';
import type { Command } from './commands.ts';
import { UsageError } from './usageError.ts';

/** `--kind AIRL,ARPT` → the kinds (upper-cased, in the order given, once each); default all 23. */
export function parseKinds(text: string | undefined): string[] {
  if (text === undefined) return [...REFERENCE_KIND_NAMES];
  const kinds = [...new Set(text.split(',').map((k) => k.trim().toUpperCase()).filter((k) => k !== ''))];
  const unknown = kinds.filter((k) => !REFERENCE_KIND_NAMES.includes(k));
  if (kinds.length === 0 || unknown.length > 0) {
    throw new UsageError(`--kind takes reference kinds separated by commas (${REFERENCE_KIND_NAMES.join(',')}); got '${text}'`);
  }
  return kinds;
}

export const requestReferenceCommand: Command = {
  summary: 'ask AODB for reference data (RQRD via COUTMSGS, one per kind): [--kind AIRL,ARPT,…] (default: all 23)',
  usage: '[--kind AIRL,ARPT,…]',
  help: 'Registers one reference request per kind (default: all 23) and sends each as an RQRD row to COUTMSGS;\nthe running writer retries a send that fails and marks a request DONE when that kind\'s RESP is decided\n(EXPIRED after MSGX_REQUEST_EXPIRE_MS).',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({ args: [...args], options: { kind: { type: 'string' } }, strict: true });
    const kinds = parseKinds(values.kind);
    const rt = await openRuntime(cfg, log, { poolMax: 2, command: 'request-reference' });
    try {
      const results = await requestReference({ pool: rt.pool, mailbox: rt.mailbox, clock: rt.clock, cfg, log }, kinds);
      const lines = results.map((r) =>
        r.send?.sent
          ? `${r.kind}: request ${r.mgid} (req ${r.reqId}) sent as RQRD to COUTMSGS id ${r.send.coutmsgsId}; WAITING for ${r.kind}/RESP`
          : `${r.kind}: request ${r.mgid} (req ${r.reqId}) not sent yet (${r.send?.sent === false ? r.send.error : 'busy'}); REGISTERED — the running writer retries it`,
      );
      process.stdout.write(lines.join('\n') + '\n');
      return 0;
    } finally {
      await rt.close();
    }
  },
};
