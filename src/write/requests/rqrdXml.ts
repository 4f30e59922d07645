import { formatCompactTime } from './aodbTime.ts';

export interface RqrdMessage {
  /** Our SEQN (the request id). */
  readonly seqn: string;
  /** Our MGID. */
  readonly mgid: string;
  readonly sentAt: Date;
  /** The reference kind asked for, e.g. AIRL. */
  readonly kind: string;
}

/**
 * The reference request (reference.md: TYPE=RQRD STYP=NONE, body `<RQRD><RTYP>AIRL</RTYP></RQRD>`);
 * the AODB answers with `AIRL/RESP`. DTTM is local airport time `yyyyMMddHHmmss`.
 */
export function rqrdXml(m: RqrdMessage, tz: string): string {
  if (!/^\d+$/.test(m.seqn)) throw new RangeError(`SEQN must be digits: ${m.seqn}`);
  if (!/^[A-Z]{4}$/.test(m.kind)) throw new RangeError(`reference kind must be 4 upper-case letters: ${m.kind}`);
  return (
    '<MSG><META>' +
    `<SNDR>MSGX</SNDR><SEQN>${m.seqn}</SEQN><DTTM>${formatCompactTime(m.sentAt, tz)}</DTTM>` +
    `<TYPE>RQRD</TYPE><STYP>NONE</STYP><MGID>${m.mgid.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</MGID>` +
    `</META><RQRD><RTYP>${m.kind}</RTYP></RQRD></MSG>`
  );
}
