/**
 * Micro-benchmark of the pure core on big plan snapshots (docs/benchmarks.md, figure 3's CPU share):
 * decode, decide and applyDecision of one DNLD of 3,000 flights with full lists, and decodes/s of
 * small FLOPs. Every figure is reported beside a baseline measured in the same run: a plain
 * `XMLParser.parse` of the same text with fast-xml-parser's default options — the floor for any
 * codec built on that parser (the codec's first version was; it now reads XML itself).
 *
 *   node --import tsx bench/domain.ts [--flights 3000] [--rounds 15]
 *
 * Warm, single-threaded timings (median of `rounds` runs after warm-up). No database.
 */
import { loadavg } from 'node:os';
import { XMLParser } from 'fast-xml-parser';
import { decode } from '../src/domain/codec/decode.ts';
import { decide, type Decision } from '../src/domain/decide.ts';
import { applyDecision } from '../src/domain/evolve.ts';
import type { FlightState } from '../src/domain/flight.ts';
import type { Message } from '../src/domain/message.ts';
import { generateDay } from './generate.ts';

const TZ = 'Asia/Shanghai';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

const FLIGHTS = arg('flights', 3000);
const ROUNDS = arg('rounds', 15);

interface Timing { wall: number; cpu: number }

/**
 * Median wall and CPU time (ms) of `fn` over `rounds` runs, after `warmup` runs. CPU time is the
 * process's (user + system, GC threads included); on a shared machine it is steadier than wall time.
 */
function timeMs(fn: () => unknown, rounds = ROUNDS, warmup = 3): Timing {
  for (let i = 0; i < warmup; i++) fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    fn();
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { wall: median(wall), cpu: median(cpu) };
}

function decodeOk(raw: string): Message {
  const r = decode(raw, { tz: TZ });
  if (!r.ok) throw new Error(`bench input does not decode: ${r.errorClass} ${r.error}`);
  return r.message;
}

function applied(flights: ReadonlyMap<string, FlightState>, d: Decision): Map<string, FlightState> {
  const next = new Map(flights);
  applyDecision(next, { position: '1', msgId: '1', recordedAt: '2025-03-14T00:00:00.000Z', changes: d.changes });
  return next;
}

const baselineParser = new XMLParser();

// --- inputs ------------------------------------------------------------------------------------
const plan = generateDay({ flights: FLIGHTS, fullLists: true, flopsPerFlight: 0 }).messages[0]!;
const flops = generateDay({ seed: 7, flights: 200, fullLists: false, flopsPerFlight: 10 }).messages.slice(1);

const dnld = decodeOk(plan);
const empty = new Map<string, FlightState>();
const fresh = decide(empty, dnld);
const loaded = applied(empty, fresh);
const again = decide(loaded, dnld);
const created = fresh.changes.filter((c) => c.type === 'FlightCreated').length;
const flightChangesAgain = again.changes.filter((c) => c.type !== 'PlanSnapshotApplied').length;
if (created !== FLIGHTS || flightChangesAgain !== 0) {
  throw new Error(`unexpected decisions: ${created} created, ${flightChangesAgain} changes on repeat`);
}

// --- measurements ------------------------------------------------------------------------------
interface Row { what: string; t: Timing; note: string }
const rows: Row[] = [];

const parsePlan = timeMs(() => baselineParser.parse(plan));
rows.push({ what: 'baseline: XMLParser.parse', t: parsePlan, note: `${(plan.length / 1e6).toFixed(2)} MB` });
rows.push({ what: `decode DNLD-${FLIGHTS}`, t: timeMs(() => decodeOk(plan)), note: '' });
rows.push({ what: 'decide vs empty state', t: timeMs(() => decide(empty, dnld)), note: `${fresh.changes.length} changes` });
rows.push({ what: 'decide vs same plan', t: timeMs(() => decide(loaded, dnld)), note: `${again.changes.length} change (the summary)` });
rows.push({ what: 'applyDecision (create all)', t: timeMs(() => applied(empty, fresh)), note: `${FLIGHTS} flights` });
rows.push({ what: 'decode+decide+apply', t: timeMs(() => applied(empty, decide(empty, decodeOk(plan)))), note: 'goal ≤ ~300 ms' });

// Small FLOPs: the whole batch per run, reported per second (of wall and of CPU time).
const flopParse = timeMs(() => { for (const m of flops) baselineParser.parse(m); });
const flopDecode = timeMs(() => { for (const m of flops) decodeOk(m); });
const perSecond = (ms: number): number => (flops.length / ms) * 1000;

// --- report ------------------------------------------------------------------------------------
const num = (n: number, width = 9, digits = 1): string => n.toFixed(digits).padStart(width);
const ratio = (n: number): string => `${n.toFixed(2)}×`.padStart(8);
const lines = [
  `domain bench — node ${process.version}, ${FLIGHTS} flights, median of ${ROUNDS} warm runs, load ${loadAvg()}`,
  '',
  `${'figure'.padEnd(28)}${'wall ms'.padStart(9)}${'ratio'.padStart(8)}${'cpu ms'.padStart(9)}${'ratio'.padStart(8)}  note`,
  ...rows.map((r) => `${r.what.padEnd(28)}${num(r.t.wall)}${ratio(r.t.wall / parsePlan.wall)}` +
    `${num(r.t.cpu)}${ratio(r.t.cpu / parsePlan.cpu)}  ${r.note}`),
  '',
  `${'small FLOPs / s'.padEnd(28)}${'wall'.padStart(9)}${'ratio'.padStart(8)}${'cpu'.padStart(9)}${'ratio'.padStart(8)}`,
  `${'baseline: XMLParser.parse'.padEnd(28)}${num(perSecond(flopParse.wall), 9, 0)}${ratio(1)}${num(perSecond(flopParse.cpu), 9, 0)}${ratio(1)}  ${flops.length} msgs`,
  `${'decode'.padEnd(28)}${num(perSecond(flopDecode.wall), 9, 0)}${ratio(flopParse.wall / flopDecode.wall)}` +
    `${num(perSecond(flopDecode.cpu), 9, 0)}${ratio(flopParse.cpu / flopDecode.cpu)}  goal ≥ 20,000/s`,
  '',
  'ratio = time / baseline time (for FLOPs: rate / baseline rate); baseline = new XMLParser().parse(sameText),',
  'fast-xml-parser default options, measured in the same run.',
];
process.stdout.write(`${lines.join('\n')}\n`);

function loadAvg(): string {
  // The machine is shared: ratios against the same-run baseline are steadier than absolutes.
  return loadavg().map((l) => l.toFixed(2)).join(' ');
}
