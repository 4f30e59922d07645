/**
 * Message identity (docs/contract/design.md §5.4): `SNDR|TYPE|STYP|SEQN`, optionally `|YYYY-MM-DD` (the local
 * date of DTTM). TYPE/STYP are the normalized ones (`TYPE=FDEL` → `FLOP|FDEL`) and SEQN is
 * canonical, so spellings of the same message bind the same identity.
 */
import { legFfid } from './handlers/aidx.ts';
import type { AidxMessage, Meta } from './message.ts';

export interface IdentityOptions {
  includeDay: boolean;
}

export function identityKey(
  meta: Pick<Meta, 'sndr' | 'type' | 'styp' | 'seqn' | 'localDate'>,
  opts: IdentityOptions,
): string {
  const key = `${meta.sndr}|${meta.type}|${meta.styp}|${meta.seqn}`;
  return opts.includeDay ? `${key}|${meta.localDate}` : key;
}

/**
 * Identity of an AIDX message (docs/contract/aidx.md "Identity"): sender, sequence number and the
 * leg keys (feeds give one number to the legs of one transaction); null without a sequence number
 * (always decided). A long key list (a day's schedule) is kept as its count and a 128-bit
 * digest (four FNV-1a runs; the domain imports no platform module — docs/architecture.md).
 */
export function aidxIdentityKey(msg: AidxMessage): string | null {
  if (msg.sequence === null) return null;
  const legs = msg.legs.map((l) => legFfid(l.key)).join(',');
  const tail = legs.length > 512 ? `${msg.legs.length} legs fnv128:${digest128(legs)}` : legs;
  return `${msg.sender}|AIDX|FLEG|${msg.sequence}|${tail}`;
}

/** 128 bits of `s` as hex: four 32-bit FNV-1a runs from different offsets, each mixing the previous. */
function digest128(s: string): string {
  let out = '';
  let seed = 0x811c9dc5;
  for (let round = 0; round < 4; round++) {
    let h = (seed ^ Math.imul(round + 1, 0x9e3779b9)) >>> 0;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    h = (h ^ (h >>> 16)) >>> 0;
    out += h.toString(16).padStart(8, '0');
    seed = h;
  }
  return out;
}
