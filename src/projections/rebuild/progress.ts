/**
 * Rebuild progress: events per second and time left, reported at most once per interval of the
 * injected clock (plus at phase boundaries). Pure apart from the clock.
 */
import type { Clock } from '../../platform/clock.ts';

export type RebuildPhase = 'replay' | 'write' | 'tail' | 'switch' | 'done';

export interface RebuildProgress {
  readonly phase: RebuildPhase;
  /** Events folded so far. */
  readonly events: number;
  /** Events to fold in total, as known now (the log keeps growing). */
  readonly total: number;
  readonly position: string;
  readonly eventsPerSecond: number;
  /** Seconds left at the current rate; null before a rate is known. */
  readonly etaSeconds: number | null;
  readonly elapsedSeconds: number;
  /** Flights in the fold. */
  readonly flights: number;
}

export type ProgressSink = (p: RebuildProgress) => void;

export class ProgressTracker {
  private readonly started: number;
  private lastReport = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly sink: ProgressSink | undefined,
    private readonly intervalMs = 1000,
  ) {
    this.started = clock.now().getTime();
  }

  /** Report when `force` or when the interval has passed since the last report. */
  report(p: Omit<RebuildProgress, 'eventsPerSecond' | 'etaSeconds' | 'elapsedSeconds'>, force = false): void {
    if (!this.sink) return;
    const now = this.clock.now().getTime();
    if (!force && now - this.lastReport < this.intervalMs) return;
    this.lastReport = now;
    this.sink(measure(p, (now - this.started) / 1000));
  }
}

export function measure(
  p: Omit<RebuildProgress, 'eventsPerSecond' | 'etaSeconds' | 'elapsedSeconds'>,
  elapsedSeconds: number,
): RebuildProgress {
  const eventsPerSecond = elapsedSeconds > 0 ? p.events / elapsedSeconds : 0;
  const left = Math.max(p.total - p.events, 0);
  const etaSeconds = eventsPerSecond > 0 ? left / eventsPerSecond : left === 0 ? 0 : null;
  return { ...p, eventsPerSecond, etaSeconds, elapsedSeconds };
}

/** One line for a terminal: `rebuild flights: replay 120000/200000 (60%) 45000 ev/s, ETA 2s, 8000 flights`. */
export function formatProgress(name: string, p: RebuildProgress): string {
  const pct = p.total > 0 ? ` (${Math.floor((p.events / p.total) * 100)}%)` : '';
  const eta = p.etaSeconds === null ? 'ETA ?' : `ETA ${Math.ceil(p.etaSeconds)}s`;
  return `rebuild ${name}: ${p.phase} ${p.events}/${p.total}${pct} ${Math.round(p.eventsPerSecond)} ev/s, ${eta}, ` +
    `${p.flights} flights, ${p.elapsedSeconds.toFixed(1)}s elapsed, position ${p.position}`;
}
