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

/**
 * Records per message from the decode worker to the writer thread. Reading a message back from the
 * worker (a structured clone) is one uninterrupted task on the writer's loop: the 21,000 records
 * of a 16 MiB plan in one piece held it for 0.6 s on a quiet machine, 3 s at load 20. In parts of
 * this many, each read when the writer thread asks for it, a part is a few milliseconds and HTTP
 * and the pump's round trips run between parts (docs/architecture.md "Decode budget").
 */
export const RECORDS_PER_PART = 500;

/**
 * Parts the worker sends before the writer thread has read them: the next ones are made while the
 * writer reads one (a part asked for only when the one before it was read waited a turn of the
 * writer's loop each time: seconds for a 16 MiB plan when the loop is busy). The writer reads the
 * parts that have arrived in one task, so this bounds that task too (docs/architecture.md "Decode budget").
 */
export const PARTS_AHEAD = 4;

/** The `records` list of a decoded message that has one (SCHD, reference data, seasonal schedules), else undefined. */
export function partedRecords(decoded: DecodedHead): unknown[] | undefined {
  if (!decoded.ok) return undefined;
  const records = (decoded.message as { records?: unknown }).records;
  return Array.isArray(records) ? records : undefined;
}
