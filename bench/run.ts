/**
 * `npm run bench` — every figure of docs/benchmarks.md, each as a ratio against a baseline measured
 * in the same run, on the machine's real PostgreSQL and MariaDB (MSGX_TEST_PG_URL,
 * MSGX_TEST_MYSQL_URL). `npm run bench -- <name> [<name> …]` runs only those figures.
 * Prints a Markdown table on stdout (progress on stderr) and writes bench/results/latest.json.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { bigPlanFigure } from './figures/bigPlan.ts';
import { endToEndFigure } from './figures/endToEnd.ts';
import { graphqlFigure } from './figures/graphql.ts';
import { historyFigure } from './figures/history.ts';
import { ingestFigure } from './figures/ingest.ts';
import { memoryFigure } from './figures/memory.ts';
import { planSnapshotFigure } from './figures/planSnapshot.ts';
import { pumpFigure } from './figures/pump.ts';
import { rebuildFigure } from './figures/rebuild.ts';
import { redecideFigure } from './figures/redecide.ts';
import { verifyFigure } from './figures/verify.ts';
import { consoleBoardFigure } from './figures/consoleBoard.ts';
import { screensFigure } from './figures/screens.ts';
import { killMsgxChildren } from '../test/support/msgxProcess.ts';
import { dropAll, dropStaleBenchDatabases, serverInfo } from './harness/databases.ts';
import type { Figure } from './harness/figure.ts';
import { progress } from './harness/progress.ts';
import { formatTable, RESULTS_FILE, writeResults, type FigureOutcome } from './harness/report.ts';
import { nowMs, round } from './harness/stats.ts';

// redecide after rebuild and verify: it clones the week fixture, which must have no open connections then.
const FIGURES: readonly Figure[] = [
  pumpFigure,
  ingestFigure,
  planSnapshotFigure,
  rebuildFigure,
  verifyFigure,
  redecideFigure,
  graphqlFigure,
  endToEndFigure,
  memoryFigure,
  historyFigure,
  consoleBoardFigure,
  bigPlanFigure,
  screensFigure,
];

function selected(args: readonly string[]): readonly Figure[] {
  if (args.length === 0) return FIGURES;
  const unknown = args.filter((a) => !FIGURES.some((f) => f.name === a));
  if (unknown.length > 0) {
    throw new Error(`unknown figure(s) ${unknown.join(', ')}; choose from: ${FIGURES.map((f) => f.name).join(', ')}`);
  }
  return FIGURES.filter((f) => args.includes(f.name));
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`usage: npm run bench [-- ${FIGURES.map((f) => f.name).join(' | ')} …]\n`);
    return 0;
  }
  const figures = selected(args);
  const started = nowMs();
  const startedAt = new Date().toISOString();
  const loadBefore = loadavg();
  const dropped = await dropStaleBenchDatabases();
  if (dropped.length > 0) progress(`dropped ${dropped.length} database(s) left by earlier runs`);
  const servers = await serverInfo();
  // Children run `node bin/msgx.js`: compile the current sources once, before any figure is timed.
  const built = spawnSync(process.execPath, [fileURLToPath(new URL('../bin/build.js', import.meta.url))], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bin/build.js failed:\n${built.stderr}`);

  const outcomes: FigureOutcome[] = [];
  try {
    for (const figure of figures) {
      progress(`figure ${figure.id} (${figure.name}): ${figure.title}`);
      const t0 = nowMs();
      try {
        const result = await figure.run();
        outcomes.push({ figure, seconds: (nowMs() - t0) / 1000, result });
      } catch (err) {
        killMsgxChildren();
        const error = err instanceof Error ? err.stack ?? err.message : String(err);
        progress(`figure ${figure.id} (${figure.name}) FAILED: ${error}`);
        outcomes.push({ figure, seconds: (nowMs() - t0) / 1000, error: err instanceof Error ? err.message : String(err) });
      }
      progress(`figure ${figure.id} done in ${outcomes.at(-1)!.seconds.toFixed(1)} s`);
    }
  } finally {
    await dropAll();
  }

  const totalSeconds = (nowMs() - started) / 1000;
  const table = formatTable(outcomes);
  process.stdout.write(`\n${table}\n\ntotal ${totalSeconds.toFixed(0)} s, load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} → ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  await writeResults({
    startedAt,
    totalSeconds: round(totalSeconds),
    figuresRun: figures.map((f) => f.name),
    machine: {
      nproc: cpus().length,
      cpu: cpus()[0]?.model,
      memoryGiB: round(totalmem() / 2 ** 30, 1),
      node: process.version,
      loadAverageBefore: loadBefore.map((l) => round(l, 2)),
      loadAverageAfter: loadavg().map((l) => round(l, 2)),
      ...servers,
    },
    figures: Object.fromEntries(
      outcomes.map((o) => [
        o.figure.name,
        { id: o.figure.id, title: o.figure.title, seconds: round(o.seconds), ...(o.result ? { rows: o.result.rows, details: o.result.details } : { error: o.error }) },
      ]),
    ),
    table,
  });
  progress(`wrote ${RESULTS_FILE}`);
  return outcomes.every((o) => o.result) ? 0 : 1;
}

const onSignal = (): void => {
  progress('interrupted: stopping children and dropping this run\'s databases');
  killMsgxChildren();
  void dropAll().finally(() => process.exit(130));
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    killMsgxChildren();
    await dropAll();
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
