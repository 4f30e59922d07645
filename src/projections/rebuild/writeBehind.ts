/**
 * Write-behind for the rebuild's replay (docs/projections.md "Rebuild", step 3): flights the fold
 * has not touched for a while (a past day's flights, usually for good) are written into the scratch
 * tables over the extra connections while the fold goes on, instead of all of them after it. So
 * PostgreSQL's half of the write overlaps the fold; the write phase is left with the flights still
 * changing at the end of the log.
 *
 * A flight written behind and touched again is dirty again and written again later (an upsert, its
 * detail rows replaced), so what the scratch tables end with is what a write after the fold would
 * give. One write-behind runs at a time, and `drain` waits for it before anything else writes the
 * scratch tables, so two writes of one flight never race.
 */
import type { FlightState } from '../../domain/flight.ts';
import type { PoolClient } from '../../platform/db.ts';
import type { DecisionEvent } from '../../log/readDecisions.ts';
import type { FlightTables } from '../../readModel/flightTables.ts';
import { flushPending, referencedFlids, type FlightWriter, type PendingWrites } from '../flightFold.ts';

export interface WriteBehindOptions {
  /** Connections that write (outside any transaction); none: nothing is written behind. */
  readonly lanes: readonly PoolClient[];
  readonly tables: FlightTables;
  /** Flights per write statement set. */
  readonly chunk: number;
  /** A flight is cold once this many decisions were folded since it was last touched. */
  readonly coldAfter: number;
  /** A write starts once at least this many dirty flights are cold. */
  readonly minFlights: number;
  /** How a chunk of flights is written (the rebuild's ScratchWrites). */
  readonly write: FlightWriter<PoolClient>;
}

export class WriteBehind {
  /** The fold's decision count when each flight was last touched. */
  private readonly touched = new Map<string, number>();
  private running: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;
  private written = 0;

  constructor(private readonly opts: WriteBehindOptions) {}

  /** Flights written behind so far (a flight written twice counts twice). */
  get flightsWritten(): number {
    return this.written;
  }

  /**
   * `page` was just folded (`folded` decisions so far): note what it touched and, when no write is
   * running, start writing the cold dirty flights of `pending` (they leave it).
   */
  folded(page: readonly DecisionEvent[], folded: number, flights: ReadonlyMap<string, FlightState>, pending: PendingWrites): void {
    for (const flid of referencedFlids(page)) this.touched.set(flid, folded);
    if (this.running !== undefined || this.failure !== undefined || this.opts.lanes.length === 0) return;
    const cold = new Set<string>();
    for (const flid of pending.dirty) {
      // Archived flights stay dirty: the final flush removes them.
      if (folded - (this.touched.get(flid) ?? 0) >= this.opts.coldAfter && flights.has(flid)) cold.add(flid);
    }
    if (cold.size < this.opts.minFlights) return;
    for (const flid of cold) pending.dirty.delete(flid);
    const [first, ...more] = this.opts.lanes;
    this.running = flushPending(first!, this.opts.tables, flights, { dirty: cold, snapshots: [] }, this.opts.chunk, more, undefined, 'all', this.opts.write)
      .then(
        (n) => void (this.written += n),
        (error: unknown) => void (this.failure = { error }),
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Wait for the running write; throws what a write behind failed with. */
  async drain(): Promise<void> {
    await this.running;
    if (this.failure !== undefined) throw this.failure.error;
  }
}
