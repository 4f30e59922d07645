import { wallClockAt, wallClockToEpochMs } from '../domain/time.ts';

/** Wall-clock text in a time zone, for the shared MySQL DATETIME columns (which carry no zone). */
export function localDateTime(at: Date, timeZone: string): string {
  const w = wallClockAt(at.getTime(), timeZone);
  const p = (n: number, l = 2) => String(n).padStart(l, '0');
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}:${p(w.second)}`;
}

/** Inverse of localDateTime: 'YYYY-MM-DD HH:MM:SS' wall-clock in `timeZone` → instant. */
export function fromLocalDateTime(text: string, timeZone: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(text);
  if (!m) throw new RangeError(`not a local date-time: ${text}`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return new Date(wallClockToEpochMs({ year, month, day, hour, minute, second }, timeZone));
}

/**
 * fromLocalDateTime for one time zone, converting each distinct text once in a row: the rows of a
 * mailbox batch mostly share their received second.
 */
export function localDateTimeReader(timeZone: string): (text: string) => Date {
  let lastText = '';
  let lastMs = 0;
  return (text) => {
    if (text !== lastText) {
      lastMs = fromLocalDateTime(text, timeZone).getTime();
      lastText = text;
    }
    return new Date(lastMs);
  };
}
