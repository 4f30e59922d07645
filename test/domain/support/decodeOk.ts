/** Decode helpers for tests: the message, or a failing assertion with the codec's error. */
import { decode } from '../../../src/domain/codec/decode.ts';
import type { FlopMessage, Message, SchdMessage } from '../../../src/domain/message.ts';

export const TZ = 'Asia/Shanghai';

export function decodeOk(xml: string, tz = TZ): Message {
  const r = decode(xml, { tz });
  if (!r.ok) throw new Error(`expected a decoded message, got ${r.errorClass}: ${r.error}`);
  return r.message;
}

export function decodeFlop(xml: string): FlopMessage {
  const m = decodeOk(xml);
  if (m.type !== 'FLOP') throw new Error(`expected FLOP, got ${m.type}`);
  return m;
}

export function decodeSchd(xml: string): SchdMessage {
  const m = decodeOk(xml);
  if (m.type !== 'SCHD') throw new Error(`expected SCHD, got ${m.type}`);
  return m;
}
