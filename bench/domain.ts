/**
 * Micro-benchmark of the pure core on big plan snapshots (docs/benchmarks.md, figure 3's CPU share):
 * decode, decide and applyDecision of one DNLD of 3,000 flights with full lists, and decodes/s of
 * small FLOPs, and AIDX decode+decide against a SIS FLOP of the same size (the same flights of the
 * plan, one estimate each). Every figure is reported beside a baseline measured in the same run: a plain
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
import { aidxLeg } from '../src/domain/aidxOut/aidxMessage.ts';
import type { FlightState } from '../src/domain/flight.ts';
import { LegIndexedFlights } from '../src/domain/legIndex.ts';
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

/** The generated plan's own station (bench/generate.ts): AIDX legs are ours when they touch it. */
const AIRPORT = 'TAO';

function decodeOk(raw: string): Message {
  const r = decode(raw, { tz: TZ, airportIata: AIRPORT });
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

// AIDX against a SIS FLOP of the same size: the same plan flights, one estimate each, decoded and
// decided against the loaded plan (AIDX finds each by its leg key, the FLOP by its flid).
const indexed = LegIndexedFlights.of(loaded);
const aodbTime = (iso: string): string => {
  const d = new Date(Date.parse(iso) + 8 * 3_600_000 + 15 * 60_000); // +08:00, 15 minutes late
  const mon = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'][d.getUTCMonth()]!;
  const p2 = (n: number): string => String(n).padStart(2, '0');
  return `${p2(d.getUTCDate())}${mon}${p2(d.getUTCFullYear() % 100)}${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}`;
};
function sisFlop(fs: readonly FlightState[]): string {
  const blocks = fs.map((f) => `<FLOP><FLID>${f.flid}</FLID><FFID>${f.ffid}</FFID><ESTT>${aodbTime(f.scheduledTime!)}</ESTT></FLOP>`);
  return `<?xml version="1.0" encoding="UTF-8"?><MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20250314080000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META>${blocks.join('')}</MSG>`;
}
function aidxNotif(fs: readonly FlightState[]): string {
  const legs = fs.map((f) => {
    const l = aidxLeg(f, AIRPORT);
    if (typeof l === 'string') throw new Error(`bench flight ${f.flid} has no AIDX leg: ${l}`);
    const est = new Date(Date.parse(f.scheduledTime!) + 15 * 60_000).toISOString().slice(0, 19);
    return `<FlightLeg><LegIdentifier><Airline>${l.airline}</Airline><FlightNumber>${l.flightNumber}</FlightNumber>`
      + `<DepartureAirport>${l.departure}</DepartureAirport><ArrivalAirport>${l.arrival}</ArrivalAirport><OriginDate>${l.originDate}</OriginDate></LegIdentifier>`
      + `<LegData><OperationTime OperationQualifier="${f.direction === 'D' ? 'OFB' : 'ONB'}" TimeType="EST">${est}Z</OperationTime></LegData></FlightLeg>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?><IATA_AIDX_FlightLegNotifRQ xmlns="http://www.iata.org/IATA/2007/00" Version="21.3" SequenceNmbr="1" TimeStamp="2025-03-14T00:00:00Z"><Originator Code="SITA"/>${legs.join('')}</IATA_AIDX_FlightLegNotifRQ>`;
}
const planFlights = [...loaded.values()];
const SIZES = [1, 200] as const;
const REPEAT: Record<number, number> = { 1: 1000, 200: 5 };
const pairs = SIZES.map((n) => {
  const fs = Array.from({ length: REPEAT[n]! }, (_, i) => Array.from({ length: n }, (_, j) => planFlights[(i * n + j) % planFlights.length]!));
  const flop = fs.map(sisFlop);
  const aidx = fs.map(aidxNotif);
  // Both must update every flight they name (AIDX by leg key): otherwise the comparison is void.
  for (const [raw, what] of [[flop[0]!, 'FLOP'], [aidx[0]!, 'AIDX']] as const) {
    const d = decide(indexed, decodeOk(raw));
    const touched = new Set(d.changes.map((c) => ('flid' in c ? c.flid : '')));
    if (touched.size !== n || d.changes.some((c) => c.type === 'FlightCreated')) throw new Error(`bench ${what} ×${n}: ${touched.size} flights updated`);
  }
  const bytes = (xs: string[]): number => xs.reduce((a, x) => a + x.length, 0) / xs.length;
  // Interleaved, round by round: each round's ratio compares two runs a moment apart (the machine is shared).
  const runFlop = (): unknown => { for (const m of flop) decide(indexed, decodeOk(m)); return undefined; };
  const runAidx = (): unknown => { for (const m of aidx) decide(indexed, decodeOk(m)); return undefined; };
  const flopT: Timing[] = [];
  const aidxT: Timing[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    flopT.push(timeMs(runFlop, 1, r === 0 ? 3 : 0));
    aidxT.push(timeMs(runAidx, 1, r === 0 ? 3 : 0));
  }
  const med = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const wallRatios = flopT.map((f, r) => aidxT[r]!.wall / f.wall);
  const cpuRatios = flopT.map((f, r) => aidxT[r]!.cpu / Math.max(f.cpu, 1e-3));
  return {
    n, flopBytes: bytes(flop), aidxBytes: bytes(aidx),
    flop: { wall: med(flopT.map((t) => t.wall)), cpu: med(flopT.map((t) => t.cpu)) },
    aidx: { wall: med(aidxT.map((t) => t.wall)), cpu: med(aidxT.map((t) => t.cpu)) },
    wallRatio: med(wallRatios), wallSpread: [Math.min(...wallRatios), Math.max(...wallRatios)] as const,
    cpuRatio: med(cpuRatios),
  };
});

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
  `${'AIDX vs SIS FLOP (µs/msg)'.padEnd(28)}${'FLOP'.padStart(9)}${'AIDX'.padStart(9)}${'ratio'.padStart(8)}${'cpu ratio'.padStart(10)}  goal ≤ 2× (ratio: median of per-round ratios [spread])`,
  ...pairs.map((p) => `${`decode+decide, ${p.n} flight${p.n > 1 ? 's' : ''}`.padEnd(28)}${num((p.flop.wall * 1000) / REPEAT[p.n]!)}${num((p.aidx.wall * 1000) / REPEAT[p.n]!)}`
    + `${ratio(p.wallRatio)}${`${p.cpuRatio.toFixed(2)}×`.padStart(10)}  [${p.wallSpread.map((x) => x.toFixed(2)).join('–')}] ${Math.round(p.flopBytes)} / ${Math.round(p.aidxBytes)} bytes`
    + `, per byte ${(p.wallRatio * (p.flopBytes / p.aidxBytes)).toFixed(2)}×`),
  '',
  'ratio = time / baseline time (for FLOPs: rate / baseline rate); baseline = new XMLParser().parse(sameText),',
  'fast-xml-parser default options, measured in the same run.',
];
process.stdout.write(`${lines.join('\n')}\n`);

function loadAvg(): string {
  // The machine is shared: ratios against the same-run baseline are steadier than absolutes.
  return loadavg().map((l) => l.toFixed(2)).join(' ');
}
