/**
 * Decoding a head's raw input (codec + identity), apart from any verdict. Imports only the codec,
 * so a worker thread that decodes (msgx redecide's page reader) loads no more than it needs.
 */
import { decode, type DecodeErrorClass } from '../../domain/codec/decode.ts';
import { aidxIdentityKey, identityKey } from '../../domain/identity.ts';
import type { Message, Meta } from '../../domain/message.ts';
import type { Config } from '../../platform/config.ts';

/**
 * What decoding a head's raw input gave, before any verdict: the message and its identity, or the
 * decode failure. Pure and clock-free, and plain data (JSON-safe), so it can be computed apart from
 * the verdict (msgx redecide decodes in a worker thread).
 */
export type DecodedHead =
  | { readonly ok: true; readonly message: Message; readonly identity: string | null }
  | { readonly ok: false; readonly errorClass: DecodeErrorClass; readonly error: string; readonly meta: Meta | null };

const NUL_ERROR = 'message contains U+0000, which XML does not allow (kept with U+FFFD in its place)';

export function decodeHead(rawXml: string, nulReplaced: boolean, cfg: Pick<Config, 'airportTz' | 'identityIncludeDay' | 'airportIata'>): DecodedHead {
  if (nulReplaced) return { ok: false, errorClass: 'MALFORMED', error: NUL_ERROR, meta: null };
  const decoded = decode(rawXml, { tz: cfg.airportTz, airportIata: cfg.airportIata });
  if (!decoded.ok) return { ok: false, errorClass: decoded.errorClass, error: decoded.error, meta: decoded.meta ?? null };
  const { message } = decoded;
  // AIDX: sender + sequence + leg keys, none without a sequence number (docs/contract/aidx.md).
  const identity = message.type === 'AIDX' ? aidxIdentityKey(message) : identityKey(message.meta, { includeDay: cfg.identityIncludeDay });
  return { ok: true, message, identity };
}
