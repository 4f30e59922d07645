/** Small XML builders for domain tests (the corpus's shape, with defaults for META). */

export interface MetaOptions {
  sndr?: string;
  seqn?: string;
  dttm?: string;
  type?: string;
  styp?: string;
  extra?: string;
}

export function metaXml(o: MetaOptions): string {
  return `<META><SNDR>${o.sndr ?? 'AODB'}</SNDR><SEQN>${o.seqn ?? '1'}</SEQN><DTTM>${o.dttm ?? '20250314080000'}</DTTM>` +
    `<TYPE>${o.type ?? 'FLOP'}</TYPE><STYP>${o.styp ?? 'ESTT'}</STYP>${o.extra ?? ''}</META>`;
}

export function msgXml(meta: MetaOptions, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<MSG>${metaXml(meta)}${body}</MSG>`;
}

/** A FLOP message with one block per entry of `blocks` ([flid, inner XML]). */
export function flopXml(styp: string, blocks: [flid: string, inner: string][], meta: MetaOptions = {}): string {
  const body = blocks.map(([flid, inner]) => `<FLOP><FLID>${flid}</FLID><FFID>X-${flid}</FFID>${inner}</FLOP>`).join('');
  return msgXml({ ...meta, type: meta.type ?? 'FLOP', styp }, body);
}

/** A FLTR record: FLID, SODT and whatever else is given. */
export function fltr(flid: string, sodt: string, inner = ''): string {
  return `<FLTR><FLID>${flid}</FLID><SODT>${sodt}</SODT>${inner}</FLTR>`;
}

export function schdXml(styp: string, records: string[], meta: MetaOptions = {}): string {
  return msgXml({ ...meta, type: 'SCHD', styp }, `<SCHD><RECS>${records.length}</RECS>${records.join('')}</SCHD>`);
}
