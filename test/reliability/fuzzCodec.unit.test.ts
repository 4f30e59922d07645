/**
 * Bad input through the codec (docs/recovery.md): at least 100,000 generated and mutated messages — valid
 * ones, truncated XML, huge bodies, deep nesting, entity expansion and external entities, wrong
 * encodings, boundary numbers, invalid times, CJK and entities in text. Each one must end
 * classified (decoded, or MALFORMED / CODEC_ERROR / UNSUPPORTED), in the class its family expects,
 * within a size-proportional time bound, and no external entity may ever be resolved: a planted
 * file's content must never appear in a result.
 *
 * MSGX_SOAK=1 runs ten times as many cases and huge bodies up to 16 MiB; MSGX_FUZZ_SEED=<n>
 * replays a run (the seed is printed).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES } from './support/fuzzCase.ts';
import { runFuzzWorker } from './support/runFuzzWorker.ts';

const SOAK = process.env.MSGX_SOAK === '1';
const SEED = Number(process.env.MSGX_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const MIN_CASES = SOAK ? 1_000_000 : 100_000;

describe('codec fuzz', () => {
  let dir: string;
  const planted = { path: '', text: `PLANTED-SECRET-${Math.random().toString(36).slice(2)}` };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'msgx-fuzz-'));
    planted.path = path.join(dir, 'secret.txt');
    await writeFile(planted.path, `${planted.text}\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(`classifies ${MIN_CASES.toLocaleString('en')}+ hostile messages without a throw, a hang or a resolved entity`, { timeout: SOAK ? 3_600_000 : 180_000 }, async () => {
    const started = Date.now();
    const run = await runFuzzWorker({ soak: SOAK, seed: SEED, tz: 'Asia/Shanghai', planted }, 120_000);
    const total = run.reports.reduce((n, r) => n + r.cases, 0);

    const width = Math.max(...run.reports.map((r) => r.family.length));
    const lines = run.reports.map((r) =>
      `  ${r.family.padEnd(width)} ${String(r.cases).padStart(7)}  ` +
      OUTCOMES.map((o) => `${o} ${r.counts[o]}`).join(', ') +
      `  (${(r.elapsedMs / 1000).toFixed(1)} s; slowest ${Math.round(r.slowestMs)} ms, largest ${(r.largestChars / 1024 / 1024).toFixed(1)} Mi chars)` +
      (r.failure ? '  FAILED' : ''));
    process.stdout.write(`\ncodec fuzz, seed ${SEED}${SOAK ? ' (soak)' : ''}: ${total} cases in ${((Date.now() - started) / 1000).toFixed(1)} s\n${lines.join('\n')}\n`);

    expect(run.aborted).toBeNull();
    expect(run.reports.filter((r) => r.failure).map((r) => `${r.family} (seed ${r.seed}): ${r.failure}`)).toEqual([]);
    expect(total).toBeGreaterThanOrEqual(MIN_CASES);
    // The hostile families really reached the codec's refusals, not only its happy path.
    const entity = run.reports.find((r) => r.family.startsWith('entity'));
    expect(entity?.counts.MALFORMED).toBeGreaterThan(0);
    for (const o of OUTCOMES) expect(run.reports.reduce((n, r) => n + r.counts[o], 0)).toBeGreaterThan(0);
  });
});
