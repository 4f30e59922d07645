/**
 * Work in steps (docs/projections.md "Big decisions"): a long pure computation — deciding a plan
 * of 70,000 records, folding its decision, writing its payload's JSON — written as a generator
 * that yields between units of work. `runSteps` runs it at one go (what every caller that may block
 * does: redecide, the fold, tests), and the pump runs the same generator a slice at a time with a
 * turn of the event loop between slices (src/platform/slicing.ts `runSliced`). Both give the
 * same value, by construction: the yields carry nothing. Pure.
 */

/** A computation that yields (nothing) between units of work and returns T. */
export type Steps<T> = Generator<undefined, T, undefined>;

/** Units of work between two yields: a few hundred microseconds of a plan's decide or fold. */
export const STEP_UNITS = 256;

/** The value of `steps`, run at one go. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** A counter: true after every STEP_UNITS-th call (the caller yields then). */
export function stepCounter(): () => boolean {
  let n = 0;
  return () => {
    n += 1;
    if (n < STEP_UNITS) return false;
    n = 0;
    return true;
  };
}
