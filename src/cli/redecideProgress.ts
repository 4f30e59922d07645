/**
 * Progress of `msgx redecide` on stderr: on a terminal one redrawn bar with rate and ETA, else a
 * line at most once a second. Time from the injected clock.
 */
import type { Clock } from '../platform/clock.ts';
import type { RedecideProgress } from '../write/redecide/redecision.ts';
import { createProgressLine, rateAndEta, type ProgressOutput } from './progressLine.ts';

const BAR = 24;

export function formatRedecideProgress(p: RedecideProgress, elapsedSeconds: number, bar: boolean): string {
  const share = p.total > 0 ? Math.min(1, p.events / p.total) : 1;
  const counts = `${p.events}/${p.total} decisions, ${p.decided} messages re-decided, ${rateAndEta(p.events, p.total, elapsedSeconds, 'ev')}`;
  if (!bar) return `redecide: ${counts}, position ${p.position}`;
  const filled = Math.round(share * BAR);
  return `redecide [${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${counts}`;
}

export function progressReporter(out: ProgressOutput, clock: Clock, intervalMs = 1000): {
  report(p: RedecideProgress, force?: boolean): void;
  done(): void;
} {
  const started = clock.now().getTime();
  const line = createProgressLine(out);
  let last = Number.NEGATIVE_INFINITY;
  const tty = out.isTTY === true;
  return {
    report(p, force = false) {
      const now = clock.now().getTime();
      // A bar may redraw often; lines only once per interval.
      if (!force && now - last < (tty ? 100 : intervalMs)) return;
      last = now;
      line.update(formatRedecideProgress(p, (now - started) / 1000, tty));
    },
    done: () => line.done(),
  };
}
