import { describe, expect, it } from 'vitest';
import type { FlightState } from '../../src/domain/flight.ts';
import { expandChanges } from '../../src/domain/compactChange.ts';
import type { Change } from '../../src/domain/changes.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { ShardDecision } from '../../src/log/readDecisions.ts';
import { ShardFold, UnshardableError, shardOf } from '../../src/projections/rebuild/shardFold.ts';

const created = (flid: string) => ({ type: 'FlightCreated', flid, operationDay: '2025-03-10', fields: { airline: 'MU', flightNo: flid }, lists: {} });
const updated = (flid: string, remark: string) => ({ type: 'FlightUpdated', flid, fields: { remark } });
const gates = (flid: string, code: string) => ({
  type: 'GatesReplaced', flid,
  items: [{ seq: 1, code, class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }],
});
const plan = { type: 'PlanSnapshotApplied', stype: 'DNLD', day: '2025-03-10', windowStart: null, windowEnd: null, created: 4, updated: 0, deleted: 0, ignored: 0 };

/** A small log: a plan creating four flights (every shard's), FLOPs of one flight each, an archive of two. */
const LOG: { changes: object[] | null; own: boolean }[] = [
  { changes: [...['101', '102', '103', '104'].map(created), plan], own: false },
  { changes: [updated('101', 'a')], own: true },
  { changes: [gates('102', 'G1'), updated('102', 'b')], own: true },
  { changes: null, own: true },
  { changes: [updated('103', 'c'), updated('104', 'd')], own: false },
  { changes: [{ type: 'FlightsArchived', flids: ['101', '104'] }], own: false },
  { changes: [updated('102', 'e')], own: true },
];

const decision = (i: number, changes: object[] | null, own: boolean): ShardDecision => ({
  position: String(i + 1), msgId: String(100 + i), kind: 'Applied', changes: changes === null ? null : JSON.stringify(changes),
  recordedAt: `2025-03-10T10:00:0${i}.000Z`, own,
});

/** The decisions shard `shard` of `shards` reads (readShardAfter): its own ones and every shared one. */
function shardLog(shard: number, shards: number): ShardDecision[] {
  return LOG.flatMap((d, i) => {
    const flids = (d.changes ?? []).flatMap((c) => ('flid' in c ? [String(c.flid)] : []));
    return !d.own || shardOf(flids[0] ?? '', shards) === shard ? [decision(i, d.changes, d.own)] : [];
  });
}

describe('ShardFold', () => {
  it.each([2, 3])('gives each flight of %i shards the state a fold of the whole log gives it', (shards) => {
    const whole = new Map<string, FlightState>();
    LOG.forEach((d, i) => {
      if (d.changes) applyDecision(whole, { position: String(i + 1), msgId: String(100 + i), recordedAt: `2025-03-10T10:00:0${i}.000Z`, changes: expandChanges(d.changes as Change[]) });
    });
    const joined = new Map<string, FlightState>();
    const gone: string[] = [];
    const snapshots: unknown[] = [];
    for (let s = 0; s < shards; s++) {
      const fold = new ShardFold(s, shards);
      for (const d of shardLog(s, shards)) fold.fold(d);
      const r = fold.take();
      for (const f of r.flights) joined.set(f.flid, f);
      gone.push(...r.gone);
      snapshots.push(...r.snapshots);
    }
    expect(new Map([...joined].sort())).toEqual(new Map([...whole].sort()));
    expect(gone.sort()).toEqual(['101', '104']);
    expect(snapshots).toEqual([expect.objectContaining({ position: '1', styp: 'DNLD', created: 4 })]);
  });

  it('refuses a decision of one shard whose changes name another shard\'s flight', () => {
    const fold = new ShardFold(shardOf('101', 2), 2);
    expect(() => fold.fold(decision(0, [updated('101', 'x'), updated('102', 'y')], true))).toThrow(UnshardableError);
    expect(() => fold.fold(decision(0, [{ type: 'FlightsArchived', flids: ['102'] }], true))).toThrow(UnshardableError);
  });
});
