/**
 * Figure 5 — the GraphQL read API on the week fixture (read model built by the rebuild).
 *
 * msgx: `msgx start --role api` (child process, its own pool of 10), POST /graphql.
 * Baseline: bench/raw/rawServer.ts (child process, pool of 10): the same statements and the same
 * JSON, without GraphQL. Load comes from this process over keep-alive HTTP.
 *
 *   board  — flights(operationDay) of a day of 2,000 flights (less the few an FDEL deleted) with
 *            every field, all detail lists and every `…Info` field (reference records seeded for
 *            the fixture's codes, seedReference.ts): the whole board is 4 pages of first: 500 (the
 *            API's maximum page), fetched one after another; p50/p99 per board (the sum of its four
 *            pages' request → last-byte times; the bench's JSON.parse of a page to read its cursor
 *            is client work and not counted, for either server) and per page, one
 *            request at a time, in turns: msgx cold (the flights checkpoint moved just before, as a
 *            projector commit moves it, so msgx's response cache cannot answer), the raw server,
 *            msgx warm (the same board again: answered from the cache); 20 boards each, or fewer
 *            (at least 8) when 75 s are up.
 *   flight — flight(flid) with every field and all lists, random flids of the week, 32 concurrent
 *            closed-loop clients for 2 × 4 s each (alternating with the baseline), requests/s.
 */
import { startChild, startMsgx, type Child } from '../harness/child.ts';
import { ensureReadModel, withDayLogPool } from '../harness/dayLog.ts';
import { row, type Figure, type FigureResult } from '../harness/figure.ts';
import { selectionText } from '../harness/flightSelection.ts';
import { seedReference } from '../harness/seedReference.ts';
import { closedLoop, expectOk, request, target, type Answer, type HttpTarget, type LoadResult } from '../harness/httpLoad.ts';
import { progress } from '../harness/progress.ts';
import { rng } from '../generate.ts';
import { nowMs, percentile, round, summarize } from '../harness/stats.ts';

const PAGE = 500;
const BOARDS = 20;
const WARM_BOARDS = 2;
/** On a loaded machine a board takes seconds: stop after this long (but not before MIN_BOARDS). */
const BOARD_BUDGET_MS = 75_000;
const MIN_BOARDS = 8;
const CONCURRENCY = 32;
const ROUND_MS = 4000;

const FLIGHT_QUERY = `query Flight($flid: ID!) { flight(flid: $flid) { ${selectionText()} } }`;
const BOARD_QUERY = `query Board($day: Date!, $first: Int!, $after: String) {
  flights(operationDay: $day, first: $first, after: $after) { edges { node { ${selectionText()} } } pageInfo { hasNextPage endCursor } } }`;

type Run = 'msgx' | 'warm' | 'raw';

interface Api {
  readonly name: 'msgx' | 'raw';
  readonly t: HttpTarget;
  flight(flid: string): Promise<string>;
  page(day: string, after: string | null): Promise<Answer>;
}

function graphqlApi(port: number): Api {
  const t = target(port, CONCURRENCY);
  const post = async (query: string, variables: Record<string, unknown>) => {
    const a = await request(t, 'POST', '/graphql', JSON.stringify({ query, variables }));
    expectOk(a, 'graphql');
    return a;
  };
  return {
    name: 'msgx',
    t,
    flight: async (flid) => (await post(FLIGHT_QUERY, { flid })).body,
    page: (day, after) => post(BOARD_QUERY, { day, first: PAGE, after }),
  };
}

function rawApi(port: number): Api {
  const t = target(port, CONCURRENCY);
  const get = async (path: string) => {
    const a = await request(t, 'GET', path);
    expectOk(a, 'raw');
    return a;
  };
  return {
    name: 'raw',
    t,
    flight: async (flid) => (await get(`/flight?flid=${flid}`)).body,
    page: (day, after) => get(`/board?day=${day}&first=${PAGE}${after ? `&after=${encodeURIComponent(after)}` : ''}`),
  };
}

interface BoardRun {
  boardMs: number;
  pageMs: number[];
  flights: number;
  bytes: number;
  pages: string[];
}

async function fetchBoard(api: Api, day: string): Promise<BoardRun> {
  const pageMs: number[] = [];
  const pages: string[] = [];
  let after: string | null = null;
  let flights = 0;
  let bytes = 0;
  for (;;) {
    const p0 = nowMs();
    const { body, lastByteAt } = await api.page(day, after);
    pageMs.push(lastByteAt - p0);
    pages.push(body);
    bytes += body.length;
    const parsed = JSON.parse(body) as { data: { flights: { edges: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } };
    flights += parsed.data.flights.edges.length;
    if (!parsed.data.flights.pageInfo.hasNextPage) break;
    after = parsed.data.flights.pageInfo.endCursor;
  }
  // The board's time is the server's: the pages' request → last-byte times. The bench's own
  // join, UTF-8 decoding and JSON.parse of each page (to read the cursor) are client work, left
  // out for both servers (decoding 2.8 MB of mostly non-ASCII text costs the client ≈ 20 ms).
  return { boardMs: pageMs.reduce((a, b) => a + b, 0), pageMs, flights, bytes, pages };
}

async function throughput(api: Api, flids: readonly string[], seed: number): Promise<LoadResult> {
  const r = rng(seed);
  return closedLoop({
    concurrency: CONCURRENCY,
    durationMs: ROUND_MS,
    warmupMs: 500,
    send: async () => void (await api.flight(flids[Math.floor(r() * flids.length)]!)),
  });
}

const RAW = 'raw pg + node:http, same JSON';

const merge = (a: LoadResult, b: LoadResult) => ({ requests: a.requests + b.requests, rate: (a.requests + b.requests) / (a.seconds + b.seconds), p50: (a.latencyMs.p50 + b.latencyMs.p50) / 2, p99: Math.max(a.latencyMs.p99, b.latencyMs.p99) });

export const graphqlFigure: Figure = {
  id: 5,
  name: 'graphql',
  title: 'GraphQL board and flight(flid)',
  run: (): Promise<FigureResult> =>
    withDayLogPool('msgx-bench-rebuild', async (log, pool) => {
      await ensureReadModel(log, pool);
      const seeded = await seedReference(pool);
      const checkpoint = (await pool.query<{ p: string }>("SELECT position::text AS p FROM projection_checkpoint WHERE name = 'flights'")).rows[0]?.p;
      /** The flights checkpoint moves, as a projector commit moves it: msgx's cached board answers are stale. */
      const moveProjection = () => pool.query("UPDATE projection_checkpoint SET position = position + 1 WHERE name = 'flights'");
      let msgx: Child | undefined;
      let raw: Child | undefined;
      try {
        msgx = await startMsgx('api', ['--role', 'api'], { MSGX_DATABASE_URL: log.db.url });
        raw = await startChild({
          label: 'raw',
          script: 'bench/raw/rawServer.ts',
          args: [],
          env: { RAW_DATABASE_URL: log.db.url, RAW_POOL_MAX: '10' },
          ready: (line) => (line.msg === 'raw listening' && typeof line.port === 'number' ? line.port : undefined),
        });
        const apis = [graphqlApi(msgx.port), rawApi(raw.port)] as const;
        const day = log.boardDay;

        // Same JSON? (the whole first page, and one flight)
        const [g1, r1] = [await fetchBoard(apis[0], day), await fetchBoard(apis[1], day)];
        const sameBoard = g1.pages.every((p, i) => p === r1.pages[i]);
        const sameFlight = (await apis[0].flight(log.flids[0]!)) === (await apis[1].flight(log.flids[0]!));
        if (!sameBoard || !sameFlight) progress('graphql: WARNING the raw baseline does not answer byte-identical JSON');

        progress(`graphql: board of ${g1.flights} flights (${(g1.bytes / 1e6).toFixed(1)} MB, ${seeded} reference records), up to ${BOARDS} times each (${BOARD_BUDGET_MS / 1000} s at most): msgx cold, raw, msgx warm`);
        const runs: Record<Run, BoardRun[]> = { msgx: [], warm: [], raw: [] };
        let sameWarm = true;
        const boardsUntil = nowMs() + BOARD_BUDGET_MS;
        for (let i = 0; i < WARM_BOARDS + BOARDS; i++) {
          if (i >= WARM_BOARDS + MIN_BOARDS && nowMs() > boardsUntil) break;
          await moveProjection();
          const cold = await fetchBoard(apis[0], day);
          const plain = await fetchBoard(apis[1], day);
          const warm = await fetchBoard(apis[0], day);
          sameWarm &&= warm.pages.every((p, k) => p === plain.pages[k]) && cold.pages.every((p, k) => p === plain.pages[k]);
          if (i < WARM_BOARDS) continue;
          runs.msgx.push(cold);
          runs.raw.push(plain);
          runs.warm.push(warm);
        }
        if (!sameWarm) progress('graphql: WARNING a cold or warm msgx board differs from the raw baseline');
        const boardStats = (rs: BoardRun[]) => ({ board: summarize(rs.map((r) => r.boardMs)), page: summarize(rs.flatMap((r) => r.pageMs)) });
        const gb = boardStats(runs.msgx);
        const rb = boardStats(runs.raw);
        const wb = boardStats(runs.warm);

        progress(`graphql: flight(flid) at concurrency ${CONCURRENCY}, 2 × ${ROUND_MS / 1000} s each, alternating`);
        const g = [] as LoadResult[];
        const rr = [] as LoadResult[];
        for (let k = 0; k < 2; k++) {
          g.push(await throughput(apis[0], log.flids, 50 + k));
          rr.push(await throughput(apis[1], log.flids, 50 + k));
        }
        const gt = merge(g[0]!, g[1]!);
        const rt = merge(rr[0]!, rr[1]!);
        const memory = await msgx.memory();
        return {
          rows: [
            row(`board ${g1.flights} flights (4 pages), every list and …Info, cold p99`, { value: gb.board.p99, unit: 'ms' }, { value: rb.board.p99, unit: 'ms', what: RAW }, 'lower', {
              text: '≤ 1.0×',
              met: gb.board.p99 <= rb.board.p99,
            }),
            row(`board cold p50`, { value: gb.board.p50, unit: 'ms' }, { value: rb.board.p50, unit: 'ms', what: RAW }, 'lower'),
            row(`board page of ${PAGE} cold p99`, { value: gb.page.p99, unit: 'ms' }, { value: rb.page.p99, unit: 'ms', what: RAW }, 'lower'),
            row(`board warm (response cache) p99`, { value: wb.board.p99, unit: 'ms' }, { value: rb.board.p99, unit: 'ms', what: RAW }, 'lower', {
              text: '≤ 0.1×',
              met: wb.board.p99 <= 0.1 * rb.board.p99,
            }),
            row(`board warm p50`, { value: wb.board.p50, unit: 'ms' }, { value: rb.board.p50, unit: 'ms', what: RAW }, 'lower'),
            row(`flight(flid) req/s at c=${CONCURRENCY}`, { value: gt.rate, unit: 'req/s' }, { value: rt.rate, unit: 'req/s', what: RAW }, 'higher', {
              text: '≥ 0.8×',
              met: gt.rate / rt.rate >= 0.8,
            }),
          ],
          details: {
            boardDay: day,
            boardFlights: g1.flights,
            boardsMeasured: runs.msgx.length,
            boardBytes: g1.bytes,
            referenceRecords: seeded,
            sameJson: { board: sameBoard, flight: sameFlight, coldAndWarmBoards: sameWarm },
            boardMs: { msgx: gb, warm: wb, raw: rb },
            boardP99PageMs: {
              msgx: round(percentile(runs.msgx.flatMap((r) => r.pageMs), 99)),
              warm: round(percentile(runs.warm.flatMap((r) => r.pageMs), 99)),
              raw: round(percentile(runs.raw.flatMap((r) => r.pageMs), 99)),
            },
            flight: {
              msgx: { ...gt, rounds: g.map((x) => round(x.rate)), latencyMs: g.map((x) => x.latencyMs) },
              raw: { ...rt, rounds: rr.map((x) => round(x.rate)), latencyMs: rr.map((x) => x.latencyMs) },
            },
            apiRssMb: round(memory.rssMb),
            apiLog: msgx.logFile,
          },
        };
      } finally {
        await msgx?.stop();
        await raw?.stop();
        // Later figures start projectors on this fixture: give the flights checkpoint back.
        if (checkpoint !== undefined) await pool.query("UPDATE projection_checkpoint SET position = $1::bigint WHERE name = 'flights'", [checkpoint]);
      }
    }),
};
