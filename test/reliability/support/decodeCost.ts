/**
 * Child process of fuzzCodecLinear.unit.test.ts: decodes each shape it is given (stdin, JSON) at
 * each size and prints the CPU time each took (stdout, JSON). Alone in its process, so the CPU time
 * (process.cpuUsage: this process's user + system time, the collector's threads included) is the
 * decode's own, whatever else the machine runs; a busy machine makes it wait, not count more.
 * Run with --expose-gc: the heap is collected before each timed decode, so one decode's garbage is
 * not charged to the next.
 */
import { decode } from '../../../src/domain/codec/decode.ts';
import { buildShape, type ShapeSpec } from './decodeShapes.ts';

export interface CostRequest {
  readonly specs: readonly ShapeSpec[];
  /** Message sizes in characters, smallest first. */
  readonly sizes: readonly number[];
  /** Timed decodes per shape and size; the least CPU time counts. */
  readonly repeats: number;
}

export interface CostResult {
  readonly spec: ShapeSpec;
  /** Per size: the characters built, the least CPU ms, and how the decode ended. */
  readonly runs: readonly { chars: number; cpuMs: number; outcome: string }[];
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function cpuMsOf(raw: string): { cpuMs: number; outcome: string } {
  gc();
  const before = process.cpuUsage();
  const r = decode(raw, { tz: 'Asia/Shanghai' });
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, outcome: r.ok ? 'ok' : `${r.errorClass}: ${r.error.slice(0, 160)}` };
}

function measure(req: CostRequest): CostResult[] {
  return req.specs.map((spec) => {
    const raws = req.sizes.map((chars) => buildShape(spec, chars));
    cpuMsOf(raws[0]!); // warm-up: compile the paths this shape takes
    const best = raws.map(() => ({ cpuMs: Infinity, outcome: '' }));
    for (let k = 0; k < req.repeats; k++) {
      raws.forEach((raw, i) => {
        const m = cpuMsOf(raw);
        if (m.cpuMs < best[i]!.cpuMs) best[i] = m;
      });
    }
    return { spec, runs: raws.map((raw, i) => ({ chars: raw.length, ...best[i]! })) };
  });
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => { input += chunk; });
process.stdin.on('end', () => {
  process.stdout.write(JSON.stringify(measure(JSON.parse(input) as CostRequest)));
});
