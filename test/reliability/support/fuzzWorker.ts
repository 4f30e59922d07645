/**
 * Runs the codec fuzz families in a worker thread, so that the test thread can stop it if a case
 * hangs (a synchronous loop can't be interrupted from inside). Progress goes to a shared counter
 * (`heartbeat`); each family's result is posted when it is done.
 */
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { decode } from '../../../src/domain/codec/decode.ts';
import { judge, outcomeOf, type Family, type FuzzCase, type Outcome, type Planted } from './fuzzCase.ts';
import { boundaryNumbers, structure, textRoundTrip, times, validMessages } from './fuzzFamilies.ts';
import { deepNesting, encodings, entityAttacks, hugeBodies, mutatedCorpus, randomText } from './fuzzHostile.ts';

export interface FuzzWorkerInput {
  readonly soak: boolean;
  readonly seed: number;
  readonly tz: string;
  readonly planted: Planted;
  /** Int32Array over a SharedArrayBuffer: [cases run so far]. */
  readonly heartbeat: SharedArrayBuffer;
}

export interface FamilyReport {
  readonly family: string;
  readonly seed: number;
  readonly cases: number;
  readonly counts: Readonly<Record<Outcome, number>>;
  readonly slowestMs: number;
  readonly largestChars: number;
  readonly elapsedMs: number;
  /** The first failing case after shrinking (fast-check's report), or null. */
  readonly failure: string | null;
}

const input = workerData as FuzzWorkerInput;
const beat = new Int32Array(input.heartbeat);

function runFamily(family: Family & { examples?: readonly FuzzCase[] }, seed: number): FamilyReport {
  const familyStarted = performance.now();
  const counts: Record<Outcome, number> = { ok: 0, MALFORMED: 0, CODEC_ERROR: 0, UNSUPPORTED: 0 };
  let cases = 0;
  let slowestMs = 0;
  let largestChars = 0;
  const one = (c: FuzzCase): void => {
    Atomics.add(beat, 0, 1);
    const started = performance.now();
    let problem: string | null;
    try {
      const r = decode(c.raw, { tz: input.tz });
      const ms = performance.now() - started;
      problem = judge(c, r, ms, input.planted);
      if (problem === null) {
        counts[outcomeOf(r)]++;
        cases++;
        slowestMs = Math.max(slowestMs, ms);
        largestChars = Math.max(largestChars, c.raw.length);
      }
    } catch (err) {
      problem = `decode threw: ${err instanceof Error ? err.stack ?? err.message : String(err)}`;
    }
    if (problem !== null) throw new Error(`${problem}\ninput (${c.raw.length} chars): ${JSON.stringify(c.raw.slice(0, 600))}`);
  };
  let failure: string | null = null;
  try {
    for (const c of family.examples ?? []) one(c);
  } catch (err) {
    failure = (err as Error).message;
  }
  const numRuns = input.soak ? family.soakRuns : family.runs;
  if (failure === null && numRuns > 0) {
    const details = fc.check(fc.property(family.arb, one), { seed, numRuns });
    if (details.failed) failure = fc.defaultReportMessage(details) ?? 'failed';
  }
  return { family: family.name, seed, cases, counts, slowestMs, largestChars, elapsedMs: performance.now() - familyStarted, failure };
}

const families: (Family & { examples?: readonly FuzzCase[] })[] = [
  validMessages, textRoundTrip, boundaryNumbers, times, structure,
  entityAttacks(input.planted), encodings, deepNesting, hugeBodies, mutatedCorpus(), randomText,
];
families.forEach((f, i) => parentPort!.postMessage(runFamily(f, input.seed + i)));
parentPort!.postMessage('done');
