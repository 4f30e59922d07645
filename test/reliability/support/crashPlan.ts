/**
 * Which kills one crash-matrix run makes, in which order: every named crash point once (the child
 * is started with `--crash-at <point>:<hit>` (crashMain.ts) and kills itself there) and some SIGKILLs from
 * the harness at random moments (after a random amount of progress of a random stage, or a random
 * time after spawning — which may land in the middle of start-up).
 */
import { rng } from '../../../bench/generate.ts';
import type { FaultPoint } from '../../../src/platform/faults.ts';
import { STAGES, type Stage } from './crashProgress.ts';

/**
 * The crash points of docs/recovery.md that this configuration reaches. Not here:
 * `delivery.COUTMSGS.acked` (no COUTMSGS routes are configured by default, so nothing is sent
 * there) and `projector.esdb.*` (the EventStoreDB forwarder runs only with MSGX_ESDB_URL).
 */
export const MATRIX_POINTS: readonly FaultPoint[] = [
  'ingest.uncommitted',
  'ingest.committed',
  'pump.uncommitted',
  'pump.committed',
  'projector.flights.uncommitted',
  'projector.flights.committed',
  'projector.outbox.uncommitted',
  'projector.outbox.committed',
  'delivery.KAFKA_MSG.acked',
  'delivery.KAFKA_SCHD.acked',
  'backfill.written',
  // Write-model snapshots (CRASH_ENV takes one every 50 decisions) and a standby's takeover.
  'snapshot.inserted',
  'writer.takeover',
];

/** Points a process reaches once at most (every child takes the writer lock once): killed on their first hit. */
const ONCE_PER_PROCESS: ReadonlySet<FaultPoint> = new Set(['writer.takeover']);

export type Kill =
  | { readonly kind: 'point'; readonly point: FaultPoint; readonly hit: number }
  | { readonly kind: 'random'; readonly stage: Stage | 'uptime'; readonly after: number };

export interface PlanOptions {
  readonly points: readonly FaultPoint[];
  /** How many of `points` one run kills at (drawn at random; all of them when it equals points.length). */
  readonly pointKills: number;
  readonly randomKills: number;
  /** A point kills on its 1st … maxHit-th hit (chosen at random). */
  readonly maxHit: number;
}

export function planKills(seed: number, opts: PlanOptions): Kill[] {
  const r = rng(seed * 7919 + 17);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const shuffle = <T>(xs: T[]): T[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = int(0, i);
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  };
  const points = shuffle([...opts.points]).slice(0, opts.pointKills);
  const kills: Kill[] = points.map((point) => ({ kind: 'point', point, hit: ONCE_PER_PROCESS.has(point) ? 1 : int(1, opts.maxHit) }));
  const stages = [...STAGES, 'uptime'] as const;
  for (let i = 0; i < opts.randomKills; i++) {
    const stage = stages[int(0, stages.length - 1)]!;
    kills.push({ kind: 'random', stage, after: stage === 'uptime' ? int(100, 3000) : int(1, 60) });
  }
  return shuffle(kills);
}

export function describeKill(k: Kill): string {
  return k.kind === 'point' ? `${k.point}:${k.hit}` : k.stage === 'uptime' ? `random: ${k.after} ms into the phase` : `random: ${k.stage} +${k.after}`;
}
