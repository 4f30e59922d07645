/**
 * Compatibility entry (docs/contract/design.md §8): `POST /cminmsgs/send` with the XML as the body writes one
 * CMINMSGS row and answers `200 {"id":"<CMINMSGS id>"}`. It does not process the message; the
 * ingest loop picks it up like any row written by AODB.
 */
import { metaFromPrefix } from '../../domain/codec/metaPrefix.ts';
import type { Clock } from '../../platform/clock.ts';
import { crossSiteRefusal } from '../../platform/http/crossSite.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Mailbox } from '../../platform/mailbox/port.ts';
import type { ModeProbe } from '../../platform/runMode.ts';
import { json, type Route } from '../httpServer.ts';
import { checkContentType, readTextBody } from './readTextBody.ts';

export const CMINMSGS_SEND_PATH = '/cminmsgs/send';
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface CminmsgsSendDeps {
  readonly mailbox: Pick<Mailbox, 'insertInbound'>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly maxBytes?: number;
  /** Browser origins allowed to post here (MSGX_ALLOWED_ORIGINS); other browser cross-site posts get 403. */
  readonly allowedOrigins?: readonly string[];
  /**
   * MSGX_COMPAT_SENDERS: the META SNDR values this entry accepts (403 otherwise); undefined → any.
   * Anyone who can post here can pre-claim a future SEQN of a sender (identity squatting), so an
   * entry reachable beyond the AODB/CIIMS hosts should list its senders.
   */
  readonly senders?: readonly string[];
  /** airport zone, to read META when `senders` is set */
  readonly tz?: string;
  /** The run mode: in shadow mode the entry is refused (it would write the legacy system's inbox). */
  readonly mode?: ModeProbe;
}

/** Why the entry answers 403 in shadow mode. */
export const SHADOW_REFUSAL =
  'msgx runs in shadow mode: POST /cminmsgs/send would write the shared inbox CMINMSGS of the legacy system, so it is refused until cut-over';

export function cminmsgsSendRoute(deps: CminmsgsSendDeps): Route {
  const maxBytes = deps.maxBytes ?? MAX_MESSAGE_BYTES;
  // Senders retry a 503: an outage is logged when it starts and when it ends, not per request.
  let failing = false;
  return {
    method: 'POST',
    path: CMINMSGS_SEND_PATH,
    async handler(req, res) {
      // A page of another site can post text/plain here with no preflight (a "simple" request):
      // refuse browser cross-site posts before reading anything.
      const crossSite = crossSiteRefusal(req, deps.allowedOrigins ?? []);
      if (crossSite) {
        req.resume();
        res.setHeader('connection', 'close');
        deps.log.info({ origin: req.headers.origin, secFetchSite: req.headers['sec-fetch-site'] }, 'cminmsgs/send: cross-site request refused');
        json(res, 403, { error: crossSite });
        return;
      }
      if (deps.mode && (await deps.mode()).shadow) {
        req.resume();
        json(res, 403, { error: SHADOW_REFUSAL });
        return;
      }
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
      if (deps.senders) {
        const sender = senderOf(body.text, deps.tz ?? 'UTC');
        if (sender === undefined || !deps.senders.includes(sender)) {
          deps.log.info({ sender }, 'cminmsgs/send: sender not in MSGX_COMPAT_SENDERS; refused');
          json(res, 403, { error: `META SNDR ${JSON.stringify(sender ?? null)} is not accepted by this entry (MSGX_COMPAT_SENDERS)` });
          return;
        }
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

/**
 * META SNDR of a message, read from its head only (metaFromPrefix: one pass over at most 64 Ki
 * characters), so a refused post costs that much whatever its size (docs/security.md §6). A
 * sender read here is the one decode reads, or the message is MALFORMED and binds no identity.
 */
function senderOf(xml: string, tz: string): string | undefined {
  return metaFromPrefix(xml, tz)?.sndr;
}
