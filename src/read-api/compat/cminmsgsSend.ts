/**
 * Compatibility entry (docs/contract/system.md §8): `POST /cminmsgs/send` with the XML as the body writes one
 * CMINMSGS row and answers `200 {"id":"<CMINMSGS id>"}`. It does not process the message; the
 * ingest loop picks it up like any row written by AODB.
 */
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Mailbox } from '../../platform/mailbox/port.ts';
import { json, type Route } from '../httpServer.ts';
import { checkContentType, readTextBody } from './readTextBody.ts';

export const CMINMSGS_SEND_PATH = '/cminmsgs/send';
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface CminmsgsSendDeps {
  readonly mailbox: Pick<Mailbox, 'insertInbound'>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly maxBytes?: number;
}

export function cminmsgsSendRoute(deps: CminmsgsSendDeps): Route {
  const maxBytes = deps.maxBytes ?? MAX_MESSAGE_BYTES;
  // Senders retry a 503: an outage is logged when it starts and when it ends, not per request.
  let failing = false;
  return {
    method: 'POST',
    path: CMINMSGS_SEND_PATH,
    async handler(req, res) {
      const badType = checkContentType(req.headers['content-type']);
      if (badType) {
        req.resume(); // drain, keep the connection usable
        json(res, badType.status, { error: badType.reason });
        return;
      }
      const body = await readTextBody(req, maxBytes);
      if (!body.ok) {
        if (body.status === 413) {
          // The rest of an oversized body is not read: answer, then close the connection.
          res.setHeader('connection', 'close');
          res.once('finish', () => req.destroy());
        }
        json(res, body.status, { error: body.reason });
        return;
      }
      let id: string;
      try {
        id = await deps.mailbox.insertInbound(body.text, deps.clock.now());
      } catch (err) {
        if (failing) deps.log.debug({ err }, 'cminmsgs/send: insert into CMINMSGS failed again');
        else deps.log.error({ err }, 'cminmsgs/send: insert into CMINMSGS failed; answering 503 until it works again');
        failing = true;
        json(res, 503, { error: 'the mailbox (CMINMSGS) is not available; try again' });
        return;
      }
      if (failing) deps.log.info('cminmsgs/send: CMINMSGS writable again');
      failing = false;
      deps.log.info({ msgId: id, bytes: Buffer.byteLength(body.text) }, 'cminmsgs/send: message written');
      json(res, 200, { id });
    },
  };
}
