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
import { decodeAidx, findAidx, type AidxFound } from './aidxBody.ts';
import { decodeFlopBody } from './flopBody.ts';
import { decodeMeta } from './meta.ts';
import { decodeReferenceBody } from './referenceBody.ts';
import { decodeSchsBody } from './schsBody.ts';
import { isReferenceStyp, isSeasonalStyp, REFERENCE_KINDS, SEASONAL_TYPE } from '../reference/kinds.ts';
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
  /** MSGX_AIRPORT_IATA: the direction of an AIDX leg (docs/contract/aidx.md); absent, AIDX is PARKED. */
  airportIata?: string | undefined;
}

/** The largest message accepted: 16 MiB of UTF-8, like POST /cminmsgs/send and CMINMSGS MEDIUMTEXT. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Error texts go to proc_state, the decision payload, GraphQL and logs: short and printable. */
export const MAX_ERROR_CHARS = 1000;

export function decode(raw: string, opts: DecodeOptions): DecodeResult {
  const r = decodeUnbounded(raw, opts);
  return r.ok ? r : { ...r, error: printable(r.error) };
}

function decodeUnbounded(raw: string, opts: DecodeOptions): DecodeResult {
  // UTF-8 takes at most 3 bytes per UTF-16 unit, so only long texts need counting.
  if (raw.length > MAX_MESSAGE_BYTES || (raw.length > MAX_MESSAGE_BYTES / 3 && Buffer.byteLength(raw) > MAX_MESSAGE_BYTES)) {
    return { ok: false, errorClass: 'MALFORMED', error: `message is larger than 16 MiB (${Buffer.byteLength(raw)} bytes)` };
  }
  try {
    if (!isValidTimeZone(opts.tz)) {
      // A configuration fault, not the message's: retryable once the zone is fixed.
      return { ok: false, errorClass: 'CODEC_ERROR', error: `unknown airport time zone '${opts.tz}'` };
    }
    const xml = parseXml(raw);
    if (!xml.ok) return { ok: false, errorClass: 'MALFORMED', error: xml.error };
    if (xml.root.name !== 'MSG') {
      // IATA AIDX, bare or in a feed's wrapper (docs/contract/aidx.md), matched by namespace.
      const aidx = findAidx(xml.root);
      if (aidx !== null) return decodeAidxClassified(aidx, opts);
    }
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
      if (Object.hasOwn(REFERENCE_KINDS, meta.type) && isReferenceStyp(meta.styp)) {
        return { ok: true, message: decodeReferenceBody(xml.root, REFERENCE_KINDS[meta.type]!, meta.styp, meta) };
      }
      if (meta.type === SEASONAL_TYPE && isSeasonalStyp(meta.styp)) {
        return { ok: true, message: decodeSchsBody(xml.root, meta.styp, meta) };
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

function decodeAidxClassified(found: AidxFound, opts: DecodeOptions): DecodeResult {
  try {
    return decodeAidx(found, { tz: opts.tz, airportIata: opts.airportIata });
  } catch (err) {
    if (err instanceof BodyError) return { ok: false, errorClass: 'CODEC_ERROR', error: err.message };
    throw err;
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Inputs are echoed into error texts (a bad time, a flight id, a tag name): escape control
 * characters (PostgreSQL refuses U+0000; ESC sequences reach terminals) and clip the length.
 */
function printable(error: string): string {
  const clipped = error.length > MAX_ERROR_CHARS ? error.slice(0, MAX_ERROR_CHARS) : error;
  // eslint-disable-next-line no-control-regex
  const escaped = clipped.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > MAX_ERROR_CHARS ? `${escaped.slice(0, MAX_ERROR_CHARS - 1)}…` : escaped;
}
