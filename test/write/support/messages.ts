/** Small SIS messages for write-side tests (the catalogue's format, see messages.md). */

const meta = (sndr: string, seqn: number, type: string, styp: string, dttm = '20250314060000') =>
  `<META><SNDR>${sndr}</SNDR><SEQN>${seqn}</SEQN><DTTM>${dttm}</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;

export function adft(seqn: number, flid: string, sodt = '14MAR250800'): string {
  return `<MSG>${meta('AODB', seqn, 'SCHD', 'ADFT')}<SCHD><RECS>1</RECS><FLTR><FLID>${flid}</FLID><FFID>HU-HU${flid}-D-${sodt}-D</FFID>` +
    `<ALCD>HU</ALCD><FLNO>HU${flid}</FLNO><MVIN>D</MVIN><SODT>${sodt}</SODT><FLTY>J</FLTY><FLIN>D</FLIN></FLTR></SCHD></MSG>`;
}

/** A DNLD plan of `flids`, all scheduled on 14 Mar 2025 (one per minute from 08:00). */
export function dnld(seqn: number, flids: readonly string[]): string {
  const recs = flids
    .map((f, i) => {
      const sodt = `14MAR25${String(8 + Math.floor(i / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}`;
      return `<FLTR><FLID>${f}</FLID><FFID>CA-CA${f}-A-${sodt}-D</FFID><ALCD>CA</ALCD><FLNO>CA${f}</FLNO><MVIN>A</MVIN><SODT>${sodt}</SODT></FLTR>`;
    })
    .join('');
  return `<MSG>${meta('AODB', seqn, 'SCHD', 'DNLD')}<SCHD><RECS>${flids.length}</RECS>${recs}</SCHD></MSG>`;
}

export function flop(sndr: string, seqn: number, styp: string, flid: string, body: string): string {
  return `<MSG>${meta(sndr, seqn, 'FLOP', styp)}<FLOP><FLID>${flid}</FLID>${body}</FLOP></MSG>`;
}

export const estt = (seqn: number, flid: string, time: string, sndr = 'AODB') => flop(sndr, seqn, 'ESTT', flid, `<ESTT>${time}</ESTT>`);
export const acft = (seqn: number, flid: string, type: string) => flop('AODB', seqn, 'ACFT', flid, `<ACFT>${type}</ACFT>`);
export const stnd = (seqn: number, flid: string, stand: string) => flop('AODB', seqn, 'STND', flid, `<STND>${stand}</STND>`);
/** A subtype with no handler: UNSUPPORTED, retried until EXHAUSTED. */
export const unsupported = (seqn: number, flid: string) => flop('AODB', seqn, 'ZZZZ', flid, '<ZZZZ>1</ZZZZ>');
/** Valid META, unreadable body: CODEC_ERROR. */
export const badTime = (seqn: number, flid: string) => flop('AODB', seqn, 'ESTT', flid, '<ESTT>not-a-time</ESTT>');
export const MALFORMED_XML = 'this is not xml <MSG><META>';
