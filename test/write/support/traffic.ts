import { MALFORMED_XML, acft, badTime, dnld, estt, flop, stnd } from './messages.ts';

/**
 * Deterministic traffic for crash tests: one DNLD of `flights` flights, then FLOP operations on
 * them (ESTT / ACFT / STND), with duplicates (a SEQN sent again), malformed messages, unknown
 * flights and undecodable bodies (CODEC_ERROR → PARKED at once) mixed in.
 */
export function generateTraffic(total: number, flights = 40): string[] {
  const flids = Array.from({ length: flights }, (_, i) => String(890_000 + i));
  const out = [dnld(1000, flids)];
  for (let i = 1; out.length < total; i++) {
    const seqn = 1000 + i;
    const flid = flids[i % flights]!;
    const minute = String(i % 60).padStart(2, '0');
    if (i % 97 === 0) out.push(MALFORMED_XML);
    else if (i % 50 === 0) out.push(estt(seqn - 7, flid, `14MAR2509${minute}`)); // duplicate identity, other content
    else if (i % 131 === 0) out.push(stnd(seqn, '899999', 'X1')); // unknown flight
    else if (i % 211 === 0) out.push(badTime(seqn, flid));
    else if (i % 3 === 0) out.push(estt(seqn, flid, `14MAR2510${minute}`));
    else if (i % 3 === 1) out.push(acft(seqn, flid, ['320', '321', '738', '333'][i % 4]!));
    else out.push(i % 7 === 0 ? flop('CIIMS', seqn, 'STND', flid, `<STND>${100 + (i % 40)}</STND>`) : stnd(seqn, flid, String(200 + (i % 30))));
  }
  return out;
}
