/**
 * No call in src spreads a list of data into its arguments (docs/projections.md "Big decisions"):
 * `rows.push(...outboxRows)` threw `RangeError: Maximum call stack size exceeded` on a plan
 * snapshot of 70k flights and stopped every delivery. The scanner (support/callSpreads.ts) finds
 * every spread argument of a call or `new` with the TypeScript compiler API; each one left must be
 * in ALLOWED with the reason its length is small and fixed. Lists of data go through `pushAll`
 * (src/platform/arrays.ts) or a loop.
 */
import { describe, expect, it } from 'vitest';
import { pushAll } from '../../src/platform/arrays.ts';
import { callSpreads } from './support/callSpreads.ts';
import { sourceFiles } from './support/sourceFiles.ts';

/** `file` + the call as written (whitespace collapsed) → why its spread is bounded. */
const ALLOWED: Readonly<Record<string, string>> = {
  'src/cli/assemble.ts routes.push(...adminRoutes(rt).routes)': 'the admin routes: a fixed table of a few entries',
  'src/cli/assemble.ts routes.push(...readApi.routes)': 'the read API routes: a fixed table',
  'src/cli/assemble.ts readiness.push(...readApi.readiness)': 'the read API readiness checks: a fixed handful',
  'src/cli/assemble.ts services.push(...readApi.services)': 'the read API services: a fixed handful',
  'src/cli/assemble.ts opts.readiness.push(...writer.readiness)': 'the writer readiness checks: a fixed handful',
  'src/cli/leftAtStop.ts Math.min(...positions)': 'the positions of the two re-driven projectors (flights, outbox)',
  'src/operations/rebuild.ts rec.finish(...outcome(r))': 'a [outcome, detail] pair',
  'src/projections/projectionServices.ts services.push(...esdb.services)': 'the ESDB services: a fixed pair',
  'src/write/requests/requestTracker.ts Math.min(...wakeAt)': 'at most three wake-up instants (poll, daily run, next due)',
};

describe('no unbounded spread in src', () => {
  it('finds a call spread, a new spread, and no array-literal spread (the scanner itself)', () => {
    const found = callSpreads({
      file: 'x.ts',
      text: 'a.push(...b);\nconst m = Math.max(\n  ...xs);\nnew Foo(...args);\nconst c = [...a, ...b];\nf({ ...o });\n',
    });
    expect(found.map((s) => [s.line, s.call])).toEqual([[1, 'a.push(...b)'], [2, 'Math.max( ...xs)'], [4, 'new Foo(...args)']]);
  });

  it('every call spread in src is allow-listed with a reason', async () => {
    const found = (await sourceFiles('src')).flatMap(callSpreads);
    const unexplained = found.filter((s) => !Object.hasOwn(ALLOWED, `${s.file} ${s.call}`)).map((s) => `${s.file}:${s.line} ${s.call}`);
    expect(unexplained).toEqual([]);
    // An allow-list entry whose call is gone is removed, so the list stays true.
    const seen = new Set(found.map((s) => `${s.file} ${s.call}`));
    expect(Object.keys(ALLOWED).filter((k) => !seen.has(k))).toEqual([]);
  });

  it('pushAll appends 500k elements, where push(...) overflows the stack', () => {
    const big = Array.from({ length: 500_000 }, (_, i) => i);
    expect(() => [].push(...(big as never[]))).toThrow(RangeError);
    const target = [-1];
    expect(pushAll(target, big)).toHaveLength(500_001);
    expect(target[500_000]).toBe(499_999);
  });
});
