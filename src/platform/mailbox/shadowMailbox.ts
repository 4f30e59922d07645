import type { Mailbox } from './port.ts';

/** A write to the shared mailbox refused because this msgx runs in shadow mode. */
export class ShadowWriteRefused extends RefusedError {
  constructor(what: string) {
    super(`shadow mode: ${what} refused — a shadow msgx never writes the shared mailbox (CMINMSGS, COUTMSGS)`);
  }
}

/**
 * The mailbox as a shadow run sees it: reads pass through, every write throws ShadowWriteRefused.
 * The shadow's services do not attempt these writes in the first place (no write-back is recorded,
 * no COUTMSGS worker runs, requests are recorded and not sent); this is the second line, so that no
 * code path — today's or a future one — can write the shared mailbox of the legacy system.
 */
export function shadowMailbox(inner: Mailbox): Mailbox {
  return {
    kind: inner.kind,
    readAfter: (afterId, limit) => inner.readAfter(afterId, limit),
    readIds: (ids) => inner.readIds(ids),
    readBatch: (afterId, limit, maxBytes, spentBefore) => inner.readBatch(afterId, limit, maxBytes, spentBefore),
    sizesOf: (ids) => inner.sizesOf(ids),
    countAfter: (afterId, limit) => inner.countAfter(afterId, limit),
    ping: () => inner.ping(),
    close: () => inner.close(),
    insertInbound: () => Promise.reject(new ShadowWriteRefused('insert into CMINMSGS')),
    backfill: () => Promise.reject(new ShadowWriteRefused('CMINMSGS write-back')),
    insertOutbound: () => Promise.reject(new ShadowWriteRefused('insert into COUTMSGS')),
  };
}
import { RefusedError } from '../errors.ts';
