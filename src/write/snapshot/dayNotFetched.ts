/**
 * A read of a flight whose snapshot day has not arrived yet (docs/recovery.md "Start cost"): the
 * reader drops what it was computing, waits for `until` (that day, fetched ahead of the others) and
 * reads again. `until` rejects when the day cannot be read (the model then starts over). Never
 * turned into a verdict: the pump's judge rethrows it (src/write/pump/evaluate.ts).
 */
export class DayNotFetched extends Error {
  constructor(
    readonly day: string,
    readonly until: Promise<void>,
  ) {
    super(`write-model snapshot: the flights of ${day} are not fetched yet`);
    this.name = 'DayNotFetched';
  }
}
