import { createHash } from 'node:crypto';

/** The forwarder's projector name (its projection_checkpoint row). */
export const ESDB_PROJECTOR = 'esdb';

/** Per-flight stream: one event per change touching that flight. */
export const flightStream = (flid: string): string => `msgx-flight-${flid}`;

/** Per-message stream: every decision recorded for one CMINMSGS id (decisions without one go to msgx-system). */
export const messageStream = (msgId: string | null): string => (msgId === null ? 'msgx-system' : `msgx-msg-${msgId}`);

/**
 * Deterministic event id (UUID v5 layout over SHA-1) so that the same log entry always becomes the
 * same EventStoreDB event, whichever process appends it.
 */
export function eventId(stream: string, position: string, seq: number): string {
  const h = createHash('sha1').update(`msgx:${stream}:${position}:${seq}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
