/**
 * Decoding is linear in the input (docs/domain.md "Decode limits"): every adversarial shape of
 * `support/decodeShapes.ts` — attribute floods, long names, many elements, deep nesting, references,
 * comments, CDATA, processing instructions, text runs, list items, plan records — and random mixes
 * of them (fast-check) is decoded at 512 KiB and at 4 MiB, and must
 * - cost at most 1.5 s of CPU per MiB at 4 MiB (the worst shape measured ~0.25 s; the attribute
 *   flood that froze msgx cost 3.5 s per MiB at 4 MiB and ~18 s per MiB at 16 MiB), and
 * - grow at most 5× faster than the input (40× for 8× the size), once it costs anything at all
 *   (400 ms of CPU at 4 MiB): a quadratic path grows 64×.
 *
 * Why this cannot flake on a loaded 2-core machine: the times are CPU times of a child process
 * that does nothing else (support/decodeCost.ts), so waiting for a core does not count; each is the
 * least of three runs after a warm-up and a full collection. The per-MiB bound is 6× the worst
 * measured. Linear shapes grow 2–26× here, not 8× (the young generation stops holding the garbage
 * of the larger inputs), so growth is judged only for a decode over 400 ms, where the shapes seen
 * grow ≤ 6×; a quadratic one costs far more than that (the old attribute flood: 14.5 s at 4 MiB).
 * Wall time is not asserted.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CostRequest, CostResult } from './support/decodeCost.ts';
import { describeShape, PIECES, WHOLE, type PieceName, type ShapeSpec, type WholeName } from './support/decodeShapes.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const SMALL = 512 * KiB;
const LARGE = 4 * MiB;
const MAX_CPU_MS_PER_MIB = 1500;
const MAX_GROWTH = 5 * (LARGE / SMALL);
const GROWTH_FLOOR_MS = 400;
const SEED = Number(process.env.MSGX_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

const pieceNames = Object.keys(PIECES) as PieceName[];
const named: ShapeSpec[] = [
  ...(Object.keys(WHOLE) as WholeName[]).map((whole) => ({ whole })),
  ...pieceNames.map((p): ShapeSpec => ({ pieces: [[p, 7]] })),
];
const mixes: ShapeSpec[] = fc.sample(
  fc.array(fc.tuple(fc.constantFrom(...pieceNames), fc.nat(99)), { minLength: 2, maxLength: 4 }).map((pieces): ShapeSpec => ({ pieces })),
  { seed: SEED, numRuns: 4 },
);

function measure(req: CostRequest): Promise<CostResult[]> {
  const script = fileURLToPath(new URL('./support/decodeCost.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath, ['--expose-gc', '--single-threaded-gc', '--import', 'tsx', script],
      { maxBuffer: 16 * MiB, timeout: 280_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as CostResult[])),
    );
    child.stdin!.end(JSON.stringify(req));
  });
}

describe('decode cost is linear in the input', () => {
  it(`holds CPU time per MiB and its growth for ${named.length} named shapes and ${mixes.length} mixes (seed ${SEED})`, { timeout: 300_000 }, async () => {
    const results = await measure({ specs: [...named, ...mixes], sizes: [SMALL, LARGE], repeats: 3 });
    const rows = results.map(({ spec, runs: [small, large] }) => {
      const perMiB = large!.cpuMs / (large!.chars / MiB);
      const growth = large!.cpuMs / Math.max(small!.cpuMs, 0.1);
      const problems = [
        perMiB > MAX_CPU_MS_PER_MIB ? `${Math.round(perMiB)} ms per MiB` : '',
        large!.cpuMs > GROWTH_FLOOR_MS && growth > MAX_GROWTH ? `grew ${growth.toFixed(0)}× for ${LARGE / SMALL}× the input` : '',
      ].filter(Boolean);
      return { shape: describeShape(spec), small: small!.cpuMs, large: large!.cpuMs, perMiB, growth, outcome: large!.outcome, problems };
    });
    process.stdout.write(`\ndecode CPU ms at ${SMALL / KiB} KiB / ${LARGE / MiB} MiB (seed ${SEED}):\n${rows.map((r) =>
      `  ${r.shape.slice(0, 60).padEnd(60)} ${r.small.toFixed(1).padStart(7)} ${r.large.toFixed(1).padStart(8)}` +
      `  ${Math.round(r.perMiB).toString().padStart(5)}/MiB ×${r.growth.toFixed(1)}  ${r.outcome.slice(0, 40)}`).join('\n')}\n`);
    expect(rows.filter((r) => r.problems.length > 0).map((r) => `${r.shape}: ${r.problems.join(', ')}`)).toEqual([]);
    // The shapes over a limit were refused at once: their cost does not depend on their size.
    for (const name of ['attribute flood', 'one long name'] as const) {
      const r = rows.find((x) => x.shape === name)!;
      expect(r.outcome).toMatch(/^MALFORMED: over a decode limit/);
      expect(r.large).toBeLessThan(GROWTH_FLOOR_MS);
    }
  });
});
