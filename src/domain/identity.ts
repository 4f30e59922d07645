/**
 * Message identity (docs/contract/design.md §5.4): `SNDR|TYPE|STYP|SEQN`, optionally `|YYYY-MM-DD` (the local
 * date of DTTM). TYPE/STYP are the normalized ones (`TYPE=FDEL` → `FLOP|FDEL`) and SEQN is
 * canonical, so spellings of the same message bind the same identity.
 */
import type { Meta } from './message.ts';

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
