/**
 * Figure 14 — airport screens on a PostgreSQL streaming replica (docs/scaling.md "Read API replicas").
 *
 * Stage: `msgx start --role writer` on the primary (bench/harness/writerStage.ts: MariaDB mailbox,
 * the in-process Kafka broker) after a DNLD of 2,000 flights; a real streaming replica of the
 * server (test/support/replica.ts: `pg_basebackup -R`, another port); 1, 2 and 4
 * `msgx start --role api` children with MSGX_READ_DATABASE_URL on the replica.
 *
 * Displays, simulated economically in this one process: each display polls a departures board
 * (flights(operationDay, direction: DEPARTURE, first: 100), the fields a screen shows) every 10 s
 * over a keep-alive agent shared per API process, the first poll at a random point of the 10 s,
 * and holds one live subscription (flightChanged(operationDay) over SSE, a fetch stream read
 * without decoding the events). The display count per API process grows step by step
 * (MSGX_BENCH_SCREENS_STEPS, default 10,25,50,100,200,400; each step MSGX_BENCH_SCREENS_STEP_MS,
 * default 30 s, so that a step of 25 displays per process has ≥ 75 polls behind its p99) until the p99 of the board polls passes 1 s or the last step is done.
 *
 * Meanwhile the writer takes a busy hour's FLOPs (the generated mix) at a steady
 * MSGX_BENCH_SCREENS_RATE messages/s (default 25: a busy airport's peak is 10–50/s), written to
 * CMINMSGS in small batches every 200 ms. The replica's lag is read once a second from the first
 * API process's `pipeline { replica { positions seconds } }`.
 *
 * Before the displays, one board at a time (ALONE_POLLS polls, same query, same FLOPs) gives the
 * board's latency without concurrent displays (details.boardAlone).
 *
 * Rows: displays per API process at which the board p99 passes 1 s, for 1, 2 and 4 processes
 * (baseline: the 1-process figure of the same run), and the replica's lag at that load (baseline:
 * its lag under the same FLOPs with no display). On one 2-core machine the API processes, both
 * PostgreSQL servers, the writer and the displays share the same cores: more processes cannot
 * add CPU, so the 2- and 4-process rows show what the machine gives, not a process's ceiling.
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startReplica, type TestReplica } from '../../test/support/replica.ts';
import { generateDay, rng } from '../generate.ts';
import { startMsgx, type Child } from '../harness/child.ts';
import { insertMany, insertOne } from '../harness/cminmsgs.ts';
import { row, type Figure, type FigureResult, type Row } from '../harness/figure.ts';
import { expectOk, request, type HttpTarget } from '../harness/httpLoad.ts';
import { progress } from '../harness/progress.ts';
import { nowMs, pause, percentile, round } from '../harness/stats.ts';
import { waitUntil } from '../harness/waitUntil.ts';
import { startWriterStage, type WriterStage } from '../harness/writerStage.ts';

const DAY = '2025-03-14';
const FLIGHTS = 2000;
const POLL_MS = 10_000;
const P99_LIMIT_MS = 1000;
const BATCH_MS = 200;
const numbers = (v: string | undefined, d: string) => (v ?? d).split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
const API_COUNTS = numbers(process.env.MSGX_BENCH_SCREENS_APIS, '1,2,4');
const STEPS = numbers(process.env.MSGX_BENCH_SCREENS_STEPS, '10,25,50,100,200,400');
const STEP_MS = Number(process.env.MSGX_BENCH_SCREENS_STEP_MS ?? 30_000);
const RATE = Number(process.env.MSGX_BENCH_SCREENS_RATE ?? 25);
const QUIET_LAG_MS = 15_000;
const ALONE_POLLS = 30;

const BOARD = `query Board($day: Date!) { flights(operationDay: $day, direction: DEPARTURE, first: 100) {
  edges { node { flid airline flightNo scheduledTime estimatedTime actualTime terminal currentStand status publicStatus publicRemark cancelled gates { code } } }
  pageInfo { hasNextPage endCursor } } }`;
const LIVE = 'subscription($day: Date) { flightChanged(operationDay: $day) { flid position type flight { status estimatedTime currentStand } } }';
const LAG = '{ pipeline { replica { positions seconds } } }';

/** The API processes' limits, raised: every simulated display comes from 127.0.0.1 (docs/security.md §2). */
const API_ENV = {
  MSGX_HTTP_MAX_CONNECTIONS: '20000',
  MSGX_HTTP_MAX_CONNECTIONS_PER_CLIENT: '20000',
  MSGX_SUBSCRIPTIONS_MAX: '20000',
  MSGX_SUBSCRIPTIONS_PER_CLIENT: '20000',
};

/** Board poll latencies (ms, request → last byte) and errors, counted while a window is open. */
class Tally {
  latencies: number[] = [];
  errors = 0;
  firstError: string | undefined;
  events = 0;
  streamErrors = 0;
  reset(): void {
    this.latencies = [];
    this.errors = 0;
    this.firstError = undefined;
    this.events = 0;
    this.streamErrors = 0;
  }
}

interface ApiHost {
  readonly child: Child;
  readonly board: HttpTarget;
  readonly displays: Display[];
}

class Display {
  private stopped = false;
  private readonly abort = new AbortController();

  constructor(private readonly host: ApiHost, private readonly tally: Tally, phaseMs: number) {
    void this.subscribe();
    void this.pollLoop(phaseMs);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async pollLoop(phaseMs: number): Promise<void> {
    await pause(phaseMs);
    const body = JSON.stringify({ query: BOARD, variables: { day: DAY } });
    while (!this.stopped) {
      const t0 = nowMs();
      try {
        const a = await request(this.host.board, 'POST', '/graphql', body);
        expectOk(a, 'board');
        if (!this.stopped) this.tally.latencies.push(a.lastByteAt - t0);
      } catch (err) {
        if (!this.stopped) {
          this.tally.errors++;
          this.tally.firstError ??= err instanceof Error ? err.message.slice(0, 200) : String(err);
        }
      }
      await pause(Math.max(0, POLL_MS - (nowMs() - t0)));
    }
  }

  private async subscribe(): Promise<void> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.host.child.port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: LIVE, variables: { day: DAY } }),
        signal: this.abort.signal,
      });
      if (res.status !== 200 || !res.body) throw new Error(`subscribe: HTTP ${res.status}`);
      const reader = res.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        // "event: next" starts every payload; counted on the bytes, not decoded.
        this.tally.events += countNext(value);
      }
    } catch {
      if (!this.stopped) this.tally.streamErrors++;
    }
  }
}

const NEXT = Buffer.from('event: next');
function countNext(chunk: Uint8Array): number {
  const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let n = 0;
  for (let i = b.indexOf(NEXT); i >= 0; i = b.indexOf(NEXT, i + NEXT.length)) n++;
  return n;
}

/** The busy hour: FLOPs into CMINMSGS at RATE messages/s until stopped. */
function feedFlops(stage: WriterStage, flops: readonly string[]): { stop(): Promise<number> } {
  let stopped = false;
  let sent = 0;
  const perBatch = Math.max(1, Math.round((RATE * BATCH_MS) / 1000));
  const done = (async () => {
    const t0 = nowMs();
    while (!stopped && sent < flops.length) {
      await insertMany(stage.my.pool, flops.slice(sent, sent + perBatch));
      sent += perBatch;
      await pause(Math.max(0, t0 + (sent / RATE) * 1000 - nowMs()));
    }
    if (sent >= flops.length) progress('screens: the busy hour ran out of FLOPs');
  })();
  return {
    async stop() {
      stopped = true;
      await done;
      return sent;
    },
  };
}

interface LagSample {
  readonly positions: number;
  readonly seconds: number;
}

/** One lag sample a second from the first API process, while `window` is open. */
function sampleLag(host: ApiHost): { take(): LagSample[]; stop(): void } {
  let samples: LagSample[] = [];
  const t: HttpTarget = { port: host.child.port, agent: new http.Agent({ keepAlive: true, maxSockets: 1 }) };
  const body = JSON.stringify({ query: LAG });
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const t0 = nowMs();
      try {
        const a = await request(t, 'POST', '/graphql', body);
        const r = (JSON.parse(a.body) as { data?: { pipeline: { replica: LagSample | null } } }).data?.pipeline.replica;
        if (r) samples.push({ positions: r.positions, seconds: r.seconds });
      } catch {
        /* a missed sample */
      }
      await pause(Math.max(0, 1000 - (nowMs() - t0)));
    }
    t.agent.destroy();
  })();
  return {
    take() {
      const s = samples;
      samples = [];
      return s;
    },
    stop: () => void (stopped = true),
  };
}

function lagSummary(s: readonly LagSample[]) {
  const pos = s.map((x) => x.positions);
  const sec = s.map((x) => x.seconds);
  return {
    samples: s.length,
    positionsP50: percentile(pos, 50),
    positionsMax: pos.reduce((a, b) => Math.max(a, b), 0),
    secondsP50: round(percentile(sec, 50), 2),
    secondsMax: round(sec.reduce((a, b) => Math.max(a, b), 0), 2),
  };
}

async function startApi(stage: WriterStage, replica: TestReplica, i: number): Promise<ApiHost> {
  const child = await startMsgx(`screens-api${i}`, ['--role', 'api'], {
    MSGX_DATABASE_URL: stage.db.url,
    MSGX_READ_DATABASE_URL: replica.url(stage.db.name),
    ...API_ENV,
  });
  return { child, board: { port: child.port, agent: new http.Agent({ keepAlive: true, maxSockets: 20_000 }) }, displays: [] };
}

interface StepResult {
  readonly displaysPerApi: number;
  readonly polls: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly errors: number;
  readonly firstError: string | undefined;
  readonly streamErrors: number;
  readonly liveEvents: number;
  readonly lag: ReturnType<typeof lagSummary>;
  readonly clientLoopDelayP99Ms: number;
  readonly loadAverage: number;
}

/** Ramp the displays of `hosts` step by step; returns every step, the last one past the limit if reached. */
async function ramp(hosts: readonly ApiHost[], lag: ReturnType<typeof sampleLag>): Promise<StepResult[]> {
  const tally = new Tally();
  const r = rng(hosts.length);
  const steps: StepResult[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  try {
    for (const n of STEPS) {
      for (const h of hosts) {
        while (h.displays.length < n) h.displays.push(new Display(h, tally, r() * POLL_MS));
      }
      tally.reset();
      lag.take();
      loop.reset();
      await pause(STEP_MS);
      const l = tally.latencies;
      const step: StepResult = {
        displaysPerApi: n,
        polls: l.length,
        p50: round(percentile(l, 50)),
        p99: round(percentile(l, 99)),
        max: round(l.reduce((a, b) => Math.max(a, b), 0)),
        errors: tally.errors,
        firstError: tally.firstError,
        streamErrors: tally.streamErrors,
        liveEvents: tally.events,
        lag: lagSummary(lag.take()),
        clientLoopDelayP99Ms: round(loop.percentile(99) / 1e6),
        loadAverage: round(loadavg()[0]!, 2),
      };
      steps.push(step);
      progress(`screens: ${hosts.length} api × ${n} displays: board p50 ${step.p50} ms, p99 ${step.p99} ms (${step.polls} polls, ${step.errors} errors${step.firstError ? `: ${step.firstError}` : ''}), ` +
        `${step.liveEvents} live events, lag ≤ ${step.lag.positionsMax} positions / ${step.lag.secondsMax} s, load ${step.loadAverage}`);
      if (step.p99 > P99_LIMIT_MS || step.errors > 0 || step.polls === 0) break;
    }
    return steps;
  } finally {
    loop.disable();
    for (const h of hosts) {
      for (const d of h.displays) d.stop();
      h.displays.length = 0;
      h.board.agent.destroy();
    }
  }
}

/** ALONE_POLLS board polls one after another: the board's latency without concurrent displays. */
async function boardsAlone(host: ApiHost) {
  const body = JSON.stringify({ query: BOARD, variables: { day: DAY } });
  const l: number[] = [];
  for (let i = 0; i < ALONE_POLLS; i++) {
    const t0 = nowMs();
    const a = await request(host.board, 'POST', '/graphql', body);
    expectOk(a, 'board');
    l.push(a.lastByteAt - t0);
  }
  return { polls: l.length, p50: round(percentile(l, 50)), p99: round(percentile(l, 99)) };
}

/** Where the p99 passed the limit: that step's display count, or undefined if no step did. */
const passedAt = (steps: readonly StepResult[]) => steps.find((s) => s.p99 > P99_LIMIT_MS || s.errors > 0);

async function seedDay(stage: WriterStage, plan: string): Promise<void> {
  const id = await insertOne(stage.my.pool, plan);
  await waitUntil(async () => {
    const { rows } = await stage.pool.query<{ ok: boolean }>(
      `SELECT p.state = 'SUCCEEDED' AND c.position >= p.decided_position AS ok
         FROM proc_state p, projection_checkpoint c WHERE p.msg_id = $1 AND c.name = 'flights'`, [id]);
    return rows[0]?.ok === true;
  }, { notifications: stage.notes, timeoutMs: 300_000, what: 'the DNLD of the day in the read model', intervalMs: 500 });
}

export const screensFigure: Figure = {
  id: 14,
  name: 'screens',
  title: 'airport screens on a streaming replica: displays per API process until board p99 > 1 s, replica lag under a busy hour',
  async run(): Promise<FigureResult> {
    const day = generateDay({ seed: 14, day: DAY, flights: FLIGHTS, flopsPerFlight: 20, fullLists: true });
    const stage = await startWriterStage('screens', ['msgx_projection']);
    const hosts: ApiHost[] = [];
    let replica: TestReplica | undefined;
    let feeder: ReturnType<typeof feedFlops> | undefined;
    let lag: ReturnType<typeof sampleLag> | undefined;
    try {
      progress(`screens: DNLD of ${FLIGHTS} flights`);
      await seedDay(stage, day.messages[0]!);
      progress('screens: starting the streaming replica');
      replica = await startReplica();
      await replica.caughtUp();
      hosts.push(await startApi(stage, replica, 0));
      feeder = feedFlops(stage, day.messages.slice(1));
      lag = sampleLag(hosts[0]!);
      await pause(QUIET_LAG_MS);
      const quiet = lagSummary(lag.take());
      progress(`screens: lag with no display: ≤ ${quiet.positionsMax} positions / ${quiet.secondsMax} s`);
      const boardAlone = await boardsAlone(hosts[0]!);
      progress(`screens: one board at a time: p50 ${boardAlone.p50} ms, p99 ${boardAlone.p99} ms`);

      const runs: Record<string, StepResult[]> = {};
      for (const count of API_COUNTS) {
        while (hosts.length < count) hosts.push(await startApi(stage, replica, hosts.length));
        runs[count] = await ramp(hosts.slice(0, count), lag);
      }
      const flopsSent = await feeder.stop();
      feeder = undefined;

      const rows: Row[] = [];
      const one = passedAt(runs[API_COUNTS[0]!]!) ?? runs[API_COUNTS[0]!]!.at(-1)!;
      for (const count of API_COUNTS) {
        const steps = runs[count]!;
        const at = passedAt(steps);
        const shown = at ?? steps.at(-1)!;
        const label = `${count} API process${count > 1 ? 'es' : ''}`;
        rows.push(row(
          `${label}: displays per process when board p99 passes 1 s${at ? '' : ' (not passed: the last step)'}`,
          { value: shown.displaysPerApi, unit: 'displays' },
          { value: one.displaysPerApi, unit: 'displays', what: `${API_COUNTS[0]} API process, same run` },
          'higher',
        ));
        rows.push(row(
          `${label}: replica lag at that load, max positions`,
          { value: shown.lag.positionsMax, unit: 'positions' },
          { value: Math.max(1, quiet.positionsMax), unit: 'positions', what: 'the same FLOPs, no display (max, at least 1)' },
          'lower',
        ));
        rows.push(row(
          `${label}: replica lag at that load, max seconds`,
          { value: shown.lag.secondsMax, unit: 's' },
          { value: Math.max(0.01, quiet.secondsMax), unit: 's', what: 'the same FLOPs, no display (max, at least 0.01 s)' },
          'lower',
        ));
      }
      return {
        rows,
        details: {
          flights: FLIGHTS,
          flopsPerSecond: RATE,
          flopsSent,
          pollMs: POLL_MS,
          stepMs: STEP_MS,
          steps: STEPS,
          quietLag: quiet,
          boardAlone,
          runs,
          apiLogs: hosts.map((h) => h.child.logFile),
          writerLog: stage.child.logFile,
        },
      };
    } finally {
      lag?.stop();
      await feeder?.stop();
      for (const h of hosts) await h.child.stop();
      await stage.close();
      await replica?.stop();
    }
  },
};
