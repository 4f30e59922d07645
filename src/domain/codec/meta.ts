/**
 * `MSG/META` → `Meta`. Any problem here makes the message MALFORMED (it cannot even be identified).
 */
import { z } from 'zod';
import type { Meta } from '../message.ts';
import { localDateOf, parseMetaTime } from '../time.ts';
import { childrenNamed, type XmlElement } from './xmlTree.ts';

const INT64_MAX = 9223372036854775807n;

const optionalText = z.string().optional().transform((v) => (v === undefined || v === '' ? null : v));

const MetaFields = z.object({
  SNDR: z.string({ error: 'missing' }).min(1, 'empty').max(8, 'longer than 8 characters'),
  SEQN: z
    .string({ error: 'missing' })
    .regex(/^\d{1,19}$/, 'not a non-negative integer')
    // zod runs every check even after one failed: guard before BigInt.
    .refine((s) => !/^\d{1,19}$/.test(s) || BigInt(s) <= INT64_MAX, 'out of int64 range')
    .transform((s) => BigInt(s).toString()),
  DTTM: z.string({ error: 'missing' }),
  TYPE: z.string({ error: 'missing' }).regex(/^[A-Za-z]{4}$/, 'not 4 letters').transform((s) => s.toUpperCase()),
  STYP: z.string({ error: 'missing' }).regex(/^[A-Za-z]{4}$/, 'not 4 letters').transform((s) => s.toUpperCase()),
  RCVR: optionalText,
  MGID: optionalText,
  RMID: optionalText,
});

export type MetaResult = { ok: true; meta: Meta } | { ok: false; error: string };

/** Decode the META of `msg` (the root element). Never throws. */
export function decodeMeta(msg: XmlElement, tz: string): MetaResult {
  const metas = childrenNamed(msg, 'META');
  if (metas.length !== 1) return { ok: false, error: metas.length === 0 ? 'no MSG/META' : 'repeated MSG/META' };
  const fields: Record<string, string> = {};
  for (const child of metas[0]!.children) {
    if (child.children.length > 0) return { ok: false, error: `META/${child.name}: expected a value, found child elements` };
    if (Object.hasOwn(fields, child.name)) return { ok: false, error: `META/${child.name}: repeated element` };
    fields[child.name] = child.text;
  }
  // DDTM is an accepted spelling of DTTM.
  if (fields.DTTM === undefined && fields.DDTM !== undefined) fields.DTTM = fields.DDTM;

  const parsed = MetaFields.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `META/${issue?.path.join('/') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  const m = parsed.data;
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
