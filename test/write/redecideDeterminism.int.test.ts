/**
 * Determinism of the pipeline's decisions (docs/operations.md): with unchanged code and configuration,
 * deciding the log again reports nothing — on every corpus scenario (pending ones too: a message
 * that today's code parks or kills is parked or killed again) and on a generated day of 400
 * flights with duplicates and bad input. Under another airport zone every time field of the
 * affected flights differs, and `msgx redecide --apply` (the real command) moves them by exactly the
 * offset difference through a Correction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateDay } from '../../bench/generate.ts';
import type { ReadDecision } from '../../src/write/redecide/decodedPage.ts';
import { inlinePageReader, WorkerPageReader, type PageReader } from '../../src/write/redecide/pageReader.ts';
import { runRedecide, WORKER_PAGES } from '../../src/write/redecide/runRedecide.ts';
import { listScenarioNames, readScenario } from '../support/corpusDir.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { runMsgx } from '../support/msgxProcess.ts';
import { appEnv, startApp, type RunningApp } from '../support/testApp.ts';

const EMPTY = { differingMessages: [], differingFlights: [], replayableMessages: [] };

let db: TestDatabase | undefined;
let app: RunningApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
  await db?.drop();
  db = undefined;
});

async function runDay(label: string, xmls: readonly string[], env: Record<string, string> = {}): Promise<RunningApp> {
  db = await createTestDatabase(label);
  app = await startApp(db, { env });
  await app.send(xmls);
  await app.drained(`${label} decided`);
  return app;
}

/** `msgx redecide …` as a process; stdout parsed as the one JSON object. */
async function redecideCli(args: readonly string[], env: Record<string, string>): Promise<Record<string, any>> {
  const { code, stdout, stderr } = await runMsgx(['redecide', ...args], env);
  if (code !== 0) throw new Error(`msgx redecide ${args.join(' ')} exited ${code}:\n${stderr}`);
  return JSON.parse(stdout) as Record<string, any>;
}

async function allPages(reader: PageReader, upTo: string): Promise<ReadDecision[]> {
  const out: ReadDecision[] = [];
  for await (const page of reader.pages('0', upTo, 150)) out.push(...page);
  return out;
}

describe.each(listScenarioNames())('corpus scenario %s', (name) => {
  it('decided again with the same code and configuration: nothing differs', async () => {
    const s = readScenario(name);
    const a = await runDay(`rdd${name.slice(0, 2)}`, s.files.map((f) => f.xml));
    const { report } = await runRedecide(a.rt.pool, { from: { position: '0' } }, { cfg: a.rt.cfg });
    expect(report).toMatchObject(EMPTY);
    expect(report.decided).toBeGreaterThanOrEqual(s.files.length);
  }, 300_000);
});

it('a generated day of 400 flights (duplicates, bad input) decided again: nothing differs', async () => {
  const { messages } = generateDay({ seed: 18, day: '2025-03-14', flights: 400, flopsPerFlight: 4, duplicateRate: 0.03, badRate: 0.02, fullLists: true });
  const a = await runDay('rddday', messages);
  // Pages of 200: the range is read and decoded by the worker thread (WorkerPageReader), as a
  // long range is in production, after the first pages were read inline while the worker started.
  const opts = { cfg: a.rt.cfg, databaseUrl: a.rt.databaseUrl, pageSize: 200 };
  const { report } = await runRedecide(a.rt.pool, { from: { position: '0' } }, opts);
  expect(report).toMatchObject(EMPTY);
  expect(report.decided).toBe(messages.length);
  expect(Number(report.to) / opts.pageSize).toBeGreaterThanOrEqual(WORKER_PAGES);
  // The worker's pages are the very objects the inline reader gives (the JSON text loses nothing).
  const reader = WorkerPageReader.open(a.rt.pool, a.rt.databaseUrl, a.rt.cfg);
  try {
    await reader.started; // every page from the worker
    const viaWorker = await allPages(reader, report.to);
    expect(viaWorker.length).toBe(Number(report.to));
    expect(viaWorker.filter((d) => d.decoded !== null && !d.decoded.ok).length).toBeGreaterThan(0);
    expect(viaWorker).toStrictEqual(await allPages(inlinePageReader(a.rt.pool, a.rt.cfg), report.to));
  } finally {
    await reader.close();
  }
  // From a position in the middle too (the prefix folded, identities bound before it honoured).
  const mid = String(Math.floor(Number(report.to) / 2));
  expect((await runRedecide(a.rt.pool, { from: { position: mid } }, opts)).report).toMatchObject({ ...EMPTY, from: mid });

  // The command an operator runs: `node bin/msgx.js` starts msgx's build (bin/build.js), so the page
  // worker is the compiled pageWorker.js. Pages of 2, so that the worker serves most of the range
  // (pages are read inline only until it has started).
  const cli = await runMsgx(['redecide', '--from', '0', '--page-size', '2', '--json'], appEnv(db!, { MSGX_LOG_LEVEL: 'info' }));
  expect(cli.code, cli.stderr).toBe(0);
  expect(JSON.parse(cli.stdout)).toMatchObject({ ...EMPTY, from: '0', to: report.to, decided: messages.length });
  const pagesRead = cli.stderr.split('\n').filter((l) => l.includes('"redecide: pages read"')).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(pagesRead).toHaveLength(1);
  expect(pagesRead[0]!.pageWorker).toMatch(/\/\.build\/[^/]+\/src\/write\/redecide\/pageWorker\.js$/);
  expect(pagesRead[0]!.workerPages).toBeGreaterThanOrEqual(WORKER_PAGES);
}, 600_000);

it('under another airport zone: every time field differs, and --apply moves them by the offset difference', async () => {
  const s = readScenario('01-plan-and-operations');
  const a = await runDay('rddtz', s.files.map((f) => f.xml), { MSGX_AIRPORT_TZ: 'Asia/Shanghai' });
  const env = appEnv(db!, { MSGX_LOG_LEVEL: 'warn' });
  expect(await redecideCli(['--from', '0', '--json'], { ...env, MSGX_AIRPORT_TZ: 'Asia/Shanghai' })).toMatchObject({ from: '0', ...EMPTY });

  const before = (await a.gql('{ flight(flid: "880001") { scheduledTime estimatedTime actualTime prevActualDeparture boardingOpen lastCall boardingClosed } }')).data.flight;
  const utc = await redecideCli(['--from', '0', '--json'], { ...env, MSGX_AIRPORT_TZ: 'UTC' });
  const f = utc.differingFlights.find((x: { flid: string }) => x.flid === '880001');
  const timeFields = Object.entries(before).filter(([, v]) => v !== null).map(([k]) => k).sort();
  expect(timeFields.length).toBeGreaterThanOrEqual(4);
  expect(Object.keys(f.fields).filter((k) => timeFields.includes(k)).sort()).toEqual(timeFields);
  for (const k of timeFields) expect(Date.parse(f.fields[k].after) - Date.parse(f.fields[k].before)).toBe(8 * 3_600_000);

  const applied = await redecideCli(['--from', '0', '--json', '--apply', '--yes'], { ...env, MSGX_AIRPORT_TZ: 'UTC' });
  const position = applied.applied.find((x: { flid: string }) => x.flid === '880001').position;
  await a.drained('corrections projected');
  const after = await a.gql(`{ flight(flid: "880001") { estimatedTime } flightHistory(flid: "880001", first: 100) { edges { node { kind position } } } }`);
  expect(Date.parse(after.data.flight.estimatedTime) - Date.parse(before.estimatedTime)).toBe(8 * 3_600_000);
  expect(after.data.flightHistory.edges.map((e: { node: unknown }) => e.node)).toContainEqual({ kind: 'Correction', position });
  // The same configuration again: nothing left to do.
  expect(await redecideCli(['--from', '0', '--json', '--apply', '--yes'], { ...env, MSGX_AIRPORT_TZ: 'UTC' })).toMatchObject({ ...EMPTY, applied: [] });
}, 600_000);

it('a page worker that cannot connect fails the re-decision (it does not hang or fall back silently)', async () => {
  db = await createTestDatabase('rddnoworker');
  const missing = new URL(db.url);
  missing.pathname = `/${db.name}_missing`;
  const cfg = { airportTz: 'Asia/Shanghai', identityIncludeDay: false, airportIata: undefined };
  const reader = WorkerPageReader.open(db.pool, missing.toString(), cfg);
  try {
    await expect(reader.started).rejects.toThrow(/does not exist/);
    await expect(allPages(reader, '10')).rejects.toThrow(/redecide page reader: .*does not exist/);
  } finally {
    await reader.close();
  }
}, 120_000);
