/**
 * The crash matrix's fault port: armed with `<point>:<n>`, it SIGKILLs the process the n-th time
 * that point is reached (src/platform/faults.ts names the points) — no `finally`, no COMMIT, no
 * socket closed politely, exactly what an OOM kill or a power cut leaves behind.
 */
import type { FaultPoint, Faults } from '../../../src/platform/faults.ts';

export interface CrashArm {
  readonly point: FaultPoint;
  /** Die on this hit (1 = the first time the point is reached). */
  readonly hit: number;
}

/** The crash matrix's command-line option of crashMain.ts. */
export const CRASH_AT_OPTION = '--crash-at';

/** Parse `<point>:<n>`; a malformed value throws, naming the option. */
export function parseCrashAt(value: string): CrashArm {
  const m = /^([a-z]+(?:\.[A-Za-z_]+)+):([1-9]\d*)$/.exec(value.trim());
  if (!m) throw new Error(`${CRASH_AT_OPTION}: must be <point>:<n>, e.g. pump.committed:2 (got ${JSON.stringify(value)})`);
  return { point: m[1]! as FaultPoint, hit: Number(m[2]) };
}

/** A port that calls `kill` (default: SIGKILL to this process) on the armed hit of the armed point. */
export function killingFaults(arm: CrashArm, kill: () => void = () => process.kill(process.pid, 'SIGKILL')): Faults {
  let hits = 0;
  return {
    reached(point) {
      if (point !== arm.point) return;
      hits += 1;
      if (hits === arm.hit) kill();
    },
  };
}
