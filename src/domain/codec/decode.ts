/**
 * The codec boundary: raw CMINMSGS text → a typed `Message`, or a classified failure.
 *
 *   MALFORMED    not well-formed XML, DOCTYPE/ENTITY present, no single MSG root, no MSG/META, or
 *                a META field missing/invalid — dead at once, never replayed
 *   UNSUPPORTED  valid META, but TYPE/STYP is not in the catalogue (no handler)
 *   CODEC_ERROR  valid META, supported subtype, but the body cannot be read (bad time, missing
 *                FLID, wrong element shape); the error names the element
 *
 * `meta` is returned with UNSUPPORTED and CODEC_ERROR, so the caller can still bind identity and
 * show the audit. `decode` never throws.
 */
import { isFlopStyp, isSchdStyp } from '../catalogue.ts';
import type { Message, Meta } from '../message.ts';
import { isValidTimeZone } from '../time.ts';
import { decodeFlopBody } from './flopBody.ts';
import { decodeMeta } from './meta.ts';
import { BodyError } from './readers.ts';
import { decodeSchdBody } from './schdBody.ts';
import { parseXml } from './xmlTree.ts';

export type DecodeErrorClass = 'MALFORMED' | 'CODEC_ERROR' | 'UNSUPPORTED';

export type DecodeResult =
  | { ok: true; message: Message }
  | { ok: false; errorClass: DecodeErrorClass; error: string; meta?: Meta };

export interface DecodeOptions {
  /** IANA zone of the airport: body times and DTTM are local time there. */
  tz: string;
}

export function decode(raw: string, opts: DecodeOptions): DecodeResult {
  try {
    if (!isValidTimeZone(opts.tz)) {
      // A configuration fault, not the message's: retryable once the zone is fixed.
      return { ok: false, errorClass: 'CODEC_ERROR', error: `unknown airport time zone '${opts.tz}'` };
    }
    const xml = parseXml(raw);
    if (!xml.ok) return { ok: false, errorClass: 'MALFORMED', error: xml.error };
    if (xml.root.name !== 'MSG') return { ok: false, errorClass: 'MALFORMED', error: `root element is <${xml.root.name}>, expected <MSG>` };
    const m = decodeMeta(xml.root, opts.tz);
    if (!m.ok) return { ok: false, errorClass: 'MALFORMED', error: m.error };
    const meta = m.meta;
    try {
      if (meta.type === 'SCHD' && isSchdStyp(meta.styp)) {
        return { ok: true, message: decodeSchdBody(xml.root, meta.styp, meta, opts.tz) };
      }
      if (meta.type === 'FLOP' && isFlopStyp(meta.styp)) {
        return { ok: true, message: decodeFlopBody(xml.root, meta.styp, meta, opts.tz) };
      }
      return { ok: false, errorClass: 'UNSUPPORTED', error: `no handler for ${meta.type}/${meta.styp}`, meta };
    } catch (err) {
      if (err instanceof BodyError) return { ok: false, errorClass: 'CODEC_ERROR', error: err.message, meta };
      return { ok: false, errorClass: 'CODEC_ERROR', error: `codec failure: ${describe(err)}`, meta };
    }
  } catch (err) {
    // Only a codec bug gets here (every input fault is classified above); keep it retryable.
    return { ok: false, errorClass: 'CODEC_ERROR', error: `codec failure: ${describe(err)}` };
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
