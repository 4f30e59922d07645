import { formatAodbTime, formatCompactTime } from './aodbTime.ts';

export interface RqfdMessage {
  /** Our SEQN (the request id: increasing for sender MSGX). */
  readonly seqn: string;
  /** Our MGID; a RESP names it in RMID. */
  readonly mgid: string;
  /** Send time (META DTTM). */
  readonly sentAt: Date;
  /** The plan window asked for: STDB … STDE. */
  readonly from: Date;
  readonly to: Date;
}

/**
 * The plan request (messages.md: TYPE=RQFD STYP=NONE, body `<RQFD><STDB/><STDE/></RQFD>`), all
 * times local airport time: DTTM `yyyyMMddHHmmss`, STDB/STDE `ddMMMyyHHmm`.
 */
export function rqfdXml(m: RqfdMessage, tz: string): string {
  return (
    '<MSG><META>' +
    `<SNDR>MSGX</SNDR><SEQN>${digits(m.seqn)}</SEQN><DTTM>${formatCompactTime(m.sentAt, tz)}</DTTM>` +
    `<TYPE>RQFD</TYPE><STYP>NONE</STYP><MGID>${xmlText(m.mgid)}</MGID>` +
    '</META><RQFD>' +
    `<STDB>${formatAodbTime(m.from, tz)}</STDB><STDE>${formatAodbTime(m.to, tz)}</STDE>` +
    '</RQFD></MSG>'
  );
}

function digits(s: string): string {
  if (!/^\d+$/.test(s)) throw new RangeError(`SEQN must be digits: ${s}`);
  return s;
}

function xmlText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
