/**
 * The write model's flight map: a LazyMap (src/platform/lazyMap.ts) whose older days may still be
 * undecoded chunks of the snapshot it started from (docs/recovery.md "Start cost"), and which
 * tells a flight's operation day without decoding it (the history sweep asks it of every flight).
 */
import type { FlightMap } from '../../domain/archive.ts';
import type { FlightState } from '../../domain/flight.ts';
import { LazyMap } from '../../platform/lazyMap.ts';
import { SnapshotChunk } from '../snapshot/snapshotCodec.ts';

export class ModelFlights extends LazyMap<string, FlightState> implements FlightMap {
  operationDayOf(flid: string): string | undefined {
    const chunk = this.chunkOf(flid);
    return chunk instanceof SnapshotChunk ? chunk.day : this.get(flid)?.operationDay;
  }
}
