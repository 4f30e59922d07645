/**
 * `MSG/META` → `Meta`. Any problem here makes the message MALFORMED (it cannot even be identified).
 */
import type { Meta } from '../message.ts';
import { localDateOf, parseMetaTime } from '../time.ts';
import { childrenNamed, type XmlElement } from './xmlTree.ts';

const INT64_MAX = 9223372036854775807n;
const DIGITS = /^\d{1,19}$/;
/** TYPE: 4 letters or digits; STYP: 3 or 4 (`ADD`, `UPD`, `DEL`, `DNLD`, …). Case is normalized to upper. */
const TYPE_CODE = /^[A-Za-z0-9]{4}$/;
const STYP_CODE = /^[A-Za-z0-9]{3,4}$/;
/**
 * The META children that identify a message: each must be a single value. The optional RCVR, MGID
 * and RMID are read when they are a single value; any other child — or an optional one with
 * children of its own, or repeated — is kept in the audit (raw XML) and ignored.
 */
const REQUIRED = new Set(['SNDR', 'SEQN', 'DTTM', 'DDTM', 'TYPE', 'STYP']);
const OPTIONAL = new Set(['RCVR', 'MGID', 'RMID']);

interface MetaFields {
  SNDR: string; SEQN: string; DTTM: string; TYPE: string; STYP: string;
  RCVR: string | null; MGID: string | null; RMID: string | null;
}

/**
 * The META values checked in a fixed order (SNDR, SEQN, DTTM, TYPE, STYP); the first problem is
 * the message. Hand-written rather than a zod schema: this runs for every message and a schema
 * parse cost more than reading a small FLOP.
 */
function bad(key: string, problem: string): { ok: false; error: string } {
  return { ok: false, error: `META/${key}: ${problem}` };
}

function optional(v: string | undefined): string | null {
  return v === undefined || v === '' ? null : v;
}

function checkFields(f: Record<string, string>): { ok: true; m: MetaFields } | { ok: false; error: string } {
  const { SNDR, SEQN, DTTM, TYPE, STYP } = f;
  if (SNDR === undefined) return bad('SNDR', 'missing');
  if (SNDR === '') return bad('SNDR', 'empty');
  if (SNDR.length > 8) return bad('SNDR', 'longer than 8 characters');
  if (SEQN === undefined) return bad('SEQN', 'missing');
  if (!DIGITS.test(SEQN)) return bad('SEQN', 'not a non-negative integer');
  const seqn = BigInt(SEQN);
  if (seqn > INT64_MAX) return bad('SEQN', 'out of int64 range');
  if (DTTM === undefined) return bad('DTTM', 'missing');
  if (TYPE === undefined) return bad('TYPE', 'missing');
  if (!TYPE_CODE.test(TYPE)) return bad('TYPE', 'not 4 letters or digits');
  if (STYP === undefined) return bad('STYP', 'missing');
  if (!STYP_CODE.test(STYP)) return bad('STYP', 'not 3 or 4 letters or digits');
  return {
    ok: true,
    m: {
      SNDR, SEQN: seqn.toString(), DTTM, TYPE: TYPE.toUpperCase(), STYP: STYP.toUpperCase(),
      RCVR: optional(f.RCVR), MGID: optional(f.MGID), RMID: optional(f.RMID),
    },
  };
}

export type MetaResult = { ok: true; meta: Meta } | { ok: false; error: string };

/** Decode the META of `msg` (the root element). Never throws. */
export function decodeMeta(msg: XmlElement, tz: string): MetaResult {
  const metas = childrenNamed(msg, 'META');
  if (metas.length !== 1) return { ok: false, error: metas.length === 0 ? 'no MSG/META' : 'repeated MSG/META' };
  const fields: Record<string, string> = {};
  const optional = new Map<string, string | null>();
  for (const child of metas[0]!.children) {
    if (OPTIONAL.has(child.name)) {
      // A second one, or one with children: not a value msgx can trust, so none.
      optional.set(child.name, optional.has(child.name) || child.children.length > 0 ? null : child.text);
      continue;
    }
    // An unknown child never makes a message MALFORMED.
    if (!REQUIRED.has(child.name)) continue;
    if (child.children.length > 0) return { ok: false, error: `META/${child.name}: expected a value, found child elements` };
    if (Object.hasOwn(fields, child.name)) return { ok: false, error: `META/${child.name}: repeated element` };
    fields[child.name] = child.text;
  }
  for (const [name, value] of optional) if (value !== null) fields[name] = value;
  // DDTM is an accepted spelling of DTTM.
  if (fields.DTTM === undefined && fields.DDTM !== undefined) fields.DTTM = fields.DDTM;

  const checked = checkFields(fields);
  if (!checked.ok) return checked;
  const m = checked.m;
  const sentAt = parseMetaTime(m.DTTM, tz);
  if (sentAt === null) return { ok: false, error: `META/DTTM: invalid time '${m.DTTM}' (expected yyyyMMddHHmmss)` };

  const isFdel = m.TYPE === 'FDEL';
  return {
    ok: true,
    meta: {
      sndr: m.SNDR,
      seqn: m.SEQN,
      dttm: m.DTTM,
      sentAt,
      localDate: localDateOf(sentAt, tz),
      type: isFdel ? 'FLOP' : m.TYPE,
      styp: isFdel ? 'FDEL' : m.STYP,
      rawType: m.TYPE,
      rawStyp: m.STYP,
      rcvr: m.RCVR,
      mgid: m.MGID,
      rmid: m.RMID,
    },
  };
}
