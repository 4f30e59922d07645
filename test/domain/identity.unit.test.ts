import { describe, expect, it } from 'vitest';
import { identityKey } from '../../src/domain/identity.ts';
import { msgXml } from './support/buildXml.ts';
import { decodeOk } from './support/decodeOk.ts';

describe('identityKey', () => {
  const meta = decodeOk(msgXml({ sndr: 'AODB', seqn: '100457', dttm: '20250314000500', styp: 'ESTT' },
    '<FLOP><FLID>1</FLID><ESTT>14MAR250930</ESTT></FLOP>')).meta;

  it('is SNDR|TYPE|STYP|SEQN', () => {
    expect(identityKey(meta, { includeDay: false })).toBe('AODB|FLOP|ESTT|100457');
  });

  it('appends the local day of DTTM when configured', () => {
    // 00:05 local on the 14th is still the 13th in UTC: the day is the airport's.
    expect(identityKey(meta, { includeDay: true })).toBe('AODB|FLOP|ESTT|100457|2025-03-14');
  });

  it('binds TYPE=FDEL and FLOP/FDEL to the same identity, and canonical SEQN', () => {
    const a = decodeOk(msgXml({ seqn: '0042', type: 'FDEL', styp: 'FDEL' }, '<FDEL><FLID>1</FLID></FDEL>')).meta;
    const b = decodeOk(msgXml({ seqn: '42', type: 'FLOP', styp: 'FDEL' }, '<FLOP><FLID>1</FLID><FDEL/></FLOP>')).meta;
    expect(identityKey(a, { includeDay: false })).toBe('AODB|FLOP|FDEL|42');
    expect(identityKey(b, { includeDay: false })).toBe(identityKey(a, { includeDay: false }));
  });
});
