/**
 * META of an InboxMessage as the read API shows it, never by decoding the message (docs/read-api.md
 * §Queries): the columns the pump filled when it decoded the message; for a message not decoded
 * yet, the bounded scan of the head of its raw XML (metaFromPrefix, on the slice selectMessages
 * loaded); for a MALFORMED one, none — decode found none, and that is stored as its error class.
 */
import { metaFromFields, metaFromPrefix } from '../../domain/codec/metaPrefix.ts';
import type { Meta } from '../../domain/message.ts';
import type { MessageRecord } from '../sql/selectMessages.ts';

export interface MessageMeta {
  readonly sender: string | null;
  readonly type: string | null;
  readonly subtype: string | null;
  readonly seqn: string | null;
  readonly dttm: string | null;
  readonly receiver: string | null;
  readonly mgid: string | null;
  readonly rmid: string | null;
  /** The checked META (normalized TYPE/STYP, local date), for the identity key; null when there is none. */
  readonly meta: Meta | null;
}

const NONE: MessageMeta = Object.freeze({ sender: null, type: null, subtype: null, seqn: null, dttm: null, receiver: null, mgid: null, rmid: null, meta: null });

/** Per record, so the fields of one message in one request read it once (records live for one request). */
const cache = new WeakMap<MessageRecord, MessageMeta>();

export function messageMeta(m: MessageRecord, tz: string): MessageMeta {
  let found = cache.get(m);
  if (found === undefined) {
    found = read(m, tz);
    cache.set(m, found);
  }
  return found;
}

function read(m: MessageRecord, tz: string): MessageMeta {
  if (m.sndr !== null && m.type !== null) {
    const meta = metaFromFields({ SNDR: m.sndr, SEQN: m.seqn, DTTM: m.dttm, TYPE: m.type, STYP: m.styp, RCVR: m.rcvr, MGID: m.mgid, RMID: m.rmid }, tz);
    return { sender: m.sndr, type: m.type, subtype: m.styp, seqn: m.seqn, dttm: m.dttm, receiver: m.rcvr, mgid: m.mgid, rmid: m.rmid, meta };
  }
  const meta = m.metaPrefix === null ? null : metaFromPrefix(m.metaPrefix, tz);
  if (meta === null) return NONE;
  return { sender: meta.sndr, type: meta.rawType, subtype: meta.rawStyp, seqn: meta.seqn, dttm: meta.dttm, receiver: meta.rcvr, mgid: meta.mgid, rmid: meta.rmid, meta };
}
