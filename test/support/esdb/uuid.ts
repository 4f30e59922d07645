import type { UUIDMessage } from './grpcModules.ts';

/** The event id as a canonical UUID string, from either of the UUID encodings the protocol allows. */
export function uuidToString(uuid: UUIDMessage): string {
  if (!uuid.hasStructured()) return uuid.getString();
  const structured = uuid.getStructured();
  const half = (bits: string | undefined): string => BigInt.asUintN(64, BigInt(bits ?? '0')).toString(16).padStart(16, '0');
  const hex = half(structured?.getMostSignificantBits()) + half(structured?.getLeastSignificantBits());
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
