/**
 * One shard of the rebuild's parallel fold (docs/projections.md "Rebuild", step 2): the flights
 * whose flid's last character falls to this shard, folded with the domain's one fold,
 * `applyDecision`. A flight's state depends only on the changes that name it (evolve.ts), so a
 * decision folded with just this shard's flight changes gives this shard's flights exactly the
 * states a fold of the whole decision gives them. Pure: the worker thread (foldWorker.ts) and the
 * unit test drive it.
 */
import { isFlightChange, type Change } from '../../domain/changes.ts';
import { expandChanges } from '../../domain/compactChange.ts';
import { decisionKindAt } from '../../domain/decisionPayload.ts';
import type { FlightState } from '../../domain/flight.ts';
import { applyDecision } from '../../domain/evolve.ts';
import { appliedEvent, type DecisionEvent, type ShardDecision } from '../../log/readDecisions.ts';
import { snapshotRow, type SnapshotRow } from '../snapLog.ts';

/** The shard (0 … shards-1) of a flight: its flid's last character's code modulo `shards`, as readShardAfter's SQL has it. */
export function shardOf(flid: string, shards: number): number {
  return flid.length === 0 ? 0 : flid.charCodeAt(flid.length - 1) % shards;
}

/** What a shard hands back: its flights the fold touched (and, of those, the ones archived), and its plan-snapshot rows. */
export interface ShardResult {
  readonly flights: FlightState[];
  readonly gone: string[];
  readonly snapshots: SnapshotRow[];
}

/** An `own` decision whose changes name another shard's flight: that shard never saw it, so the shards cannot be joined. */
export class UnshardableError extends Error {
  constructor(readonly position: string) {
    super(`decision at position ${position} changes a flight its flids column does not name`);
  }
}

export class ShardFold {
  private readonly flights = new Map<string, FlightState>();
  private readonly dirty = new Set<string>();
  private snapshots: SnapshotRow[] = [];

  constructor(
    private readonly shard: number,
    private readonly shards: number,
  ) {}

  private mine(flid: string): boolean {
    return shardOf(flid, this.shards) === this.shard;
  }

  /**
   * Fold one decision (ascending positions, after those folded so far). Shard 0 records the plan
   * snapshots of decisions every shard gets; a decision of one shard is recorded by it.
   */
  fold(d: ShardDecision): void {
    if (d.changes === null) return;
    const parsed: unknown = JSON.parse(d.changes);
    if (!Array.isArray(parsed) || parsed.length === 0) return;
    const all = expandChanges(parsed as Change[]);
    if (d.own && !all.every((c) => (c.type === 'FlightsArchived' ? c.flids.every((f) => this.mine(f)) : !isFlightChange(c) || this.mine(c.flid)))) {
      throw new UnshardableError(d.position);
    }
    const changes = d.own ? all : all.filter((c) => !isFlightChange(c) || this.mine(c.flid));
    const e: DecisionEvent & { changes: readonly Change[] } = {
      position: d.position, msgId: d.msgId, kind: decisionKindAt(d.position, d.kind), recordedAt: d.recordedAt, changes,
    };
    if (changes.length > 0) for (const flid of applyDecision(this.flights, appliedEvent(e))) this.dirty.add(flid);
    if (d.own || this.shard === 0) for (const c of all) if (c.type === 'PlanSnapshotApplied') this.snapshots.push(snapshotRow(e, c));
  }

  /** The touched flights since the last take (present ones, and archived flids), and the snapshot rows; both start afresh. */
  take(): ShardResult {
    const flights: FlightState[] = [];
    const gone: string[] = [];
    for (const flid of this.dirty) {
      const s = this.flights.get(flid);
      if (s) flights.push(s);
      else gone.push(flid);
    }
    this.dirty.clear();
    const snapshots = this.snapshots;
    this.snapshots = [];
    return { flights, gone, snapshots };
  }
}
