/**
 * Message identity (docs/contract/design.md §5.4): `SNDR|TYPE|STYP|SEQN`, optionally `|YYYY-MM-DD` (the local
 * date of DTTM). TYPE/STYP are the normalized ones (`TYPE=FDEL` → `FLOP|FDEL`) and SEQN is
 * canonical, so spellings of the same message bind the same identity.
 */
import { createHash } from 'node:crypto';
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
 * (always decided). A long key list (a day's schedule) is kept as its SHA-256.
 */
export function aidxIdentityKey(msg: AidxMessage): string | null {
  if (msg.sequence === null) return null;
  const legs = msg.legs.map((l) => legFfid(l.key)).join(',');
  const tail = legs.length > 512 ? `sha256:${createHash('sha256').update(legs).digest('hex')}` : legs;
  return `${msg.sender}|AIDX|FLEG|${msg.sequence}|${tail}`;
}
