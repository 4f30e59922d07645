/**
 * Corpus scenarios (test/corpus) turned into decision events with the real domain: decode,
 * identity dedup, decide against a write model folded with applyDecision — what the pump does,
 * minus retries. Used to feed projectors without running the write side.
 */
import { decode } from '../../../src/domain/codec/decode.ts';
import { decide } from '../../../src/domain/decide.ts';
import { applyDecision } from '../../../src/domain/evolve.ts';
import type { FlightState } from '../../../src/domain/flight.ts';
import { identityKey } from '../../../src/domain/identity.ts';
import type { DecisionInput } from '../../support/decisions.ts';

export const TZ = 'Asia/Shanghai';

/**
 * One decision per message, msg ids `firstMsgId…`, recorded one second apart from `start`.
 * Returns the decisions and the write model after the last one, stamped as if the decisions were
 * appended at positions `firstPosition…` (default 1: an empty log).
 */
export function decideMessages(
  xmls: readonly string[],
  opts: { firstMsgId?: number; firstPosition?: number; start?: Date; flights?: Map<string, FlightState> } = {},
): { decisions: DecisionInput[]; flights: Map<string, FlightState> } {
  const flights = opts.flights ?? new Map<string, FlightState>();
  const identities = new Map<string, string>();
  const start = (opts.start ?? new Date('2025-03-14T00:00:00Z')).getTime();
  const decisions: DecisionInput[] = [];
  xmls.forEach((xml, i) => {
    const msgId = String((opts.firstMsgId ?? 1) + i);
    const recordedAt = new Date(start + i * 1000);
    const decoded = decode(xml, { tz: TZ });
    if (!decoded.ok) {
      decisions.push({ msgId, kind: 'Dead', payload: { errorClass: decoded.errorClass, error: decoded.error, attempt: 1 }, recordedAt });
      return;
    }
    const key = identityKey(decoded.message.meta, { includeDay: false });
    const first = identities.get(key);
    if (first !== undefined) {
      decisions.push({ msgId, kind: 'Skipped', payload: { reason: `duplicate-of:${first}` }, recordedAt });
      return;
    }
    identities.set(key, msgId);
    const d = decide(flights, decoded.message);
    if (d.skipped !== undefined) {
      decisions.push({ msgId, kind: 'Skipped', handler: d.handler, handlerVersion: d.handlerVersion, payload: { reason: d.skipped }, recordedAt });
      return;
    }
    const position = (opts.firstPosition ?? 1) + i;
    const flids = [...new Set(d.changes.flatMap((c) => ('flid' in c ? [c.flid] : [])))];
    applyDecision(flights, { position: String(position), msgId, recordedAt: recordedAt.toISOString(), changes: d.changes });
    decisions.push({
      msgId, kind: 'Applied', handler: d.handler, handlerVersion: d.handlerVersion, flids, payload: { changes: d.changes }, recordedAt,
    });
  });
  return { decisions, flights };
}
