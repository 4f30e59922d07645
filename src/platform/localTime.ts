/** Wall-clock text in a time zone, for the shared MySQL DATETIME columns (which carry no zone). */
export function localDateTime(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
}

/** Inverse of localDateTime: 'YYYY-MM-DD HH:MM:SS' wall-clock in `timeZone` → instant. */
export function fromLocalDateTime(text: string, timeZone: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(text);
  if (!m) throw new RangeError(`not a local date-time: ${text}`);
  const asUtc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  // Offset of the zone at (approximately) that instant; a second pass settles DST edges.
  let guess = asUtc;
  for (let i = 0; i < 2; i++) {
    const shown = localDateTime(new Date(guess), timeZone);
    const shownUtc = Date.parse(shown.replace(' ', 'T') + 'Z');
    guess += asUtc - shownUtc;
  }
  return new Date(guess);
}
