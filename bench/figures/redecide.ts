/**
 * Figure 9 — `msgx redecide --from 0` over the week fixture of figure 4 (just over 200k events,
 * every message's raw XML in inbox_message), events/s, against `msgx rebuild flights` on the same
 * log measured in the same run (the goal: within 2× of the rebuild, ratio ≥ 0.5). The report must
 * be empty: the fixture was decided by the pump's own code (bench/harness/domainMirror.ts), so
 * anything it shows is a determinism bug.
 */
import { readFileSync } from 'node:fs';
import { systemClock } from '../../src/platform/clock.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { rebuildFlights } from '../../src/projections/rebuild/rebuildFlights.ts';
import { runRedecide } from '../../src/write/redecide/runRedecide.ts';
import { BENCH_ENV, benchLogger } from '../harness/benchRuntime.ts';
import { cpuNow, cpuSince } from '../harness/cpuTime.ts';
import { withBenchClient } from '../harness/databases.ts';
import { withDayLogCopy } from '../harness/dayLog.ts';
import { row, type Figure, type FigureResult } from '../harness/figure.ts';
import { progress } from '../harness/progress.ts';
import { nowMs, round } from '../harness/stats.ts';
import { DAYS, loggedMessages } from '../harness/weekDay.ts';

const CHUNK = 5000;

/**
 * CPU seconds (user + system) of this process's main thread alone (/proc/self/task/<pid>/stat: the
 * main thread's tid is the pid) — the thread that decides; the page worker's CPU is not in it.
 */
function mainThreadCpu(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The raw input of every logged decision: message id = position, the days in order (as dayLog numbers them). */
export async function fillInbox(url: string): Promise<number> {
  return withBenchClient(url, 'msgx-bench-fixture', async (c) => {
    await c.query('SET synchronous_commit TO off');
    let id = 0;
    for (const [k] of DAYS.entries()) {
      const messages = loggedMessages(k);
      for (let i = 0; i < messages.length; i += CHUNK) {
        const part = messages.slice(i, i + CHUNK);
        await c.query(
          `INSERT INTO inbox_message (msg_id, ingested_at, raw_xml)
           SELECT t.ord + $1::bigint, now(), t.raw FROM unnest($2::text[]) WITH ORDINALITY AS t(raw, ord)`,
          [id + i, part],
        );
      }
      id += messages.length;
      progress(`redecide: inbox of day ${DAYS[k]} filled (${id} messages)`);
    }
    await c.query('ANALYZE inbox_message');
    return id;
  });
}

export const redecideFigure: Figure = {
  id: 9,
  name: 'redecide',
  title: 'msgx redecide --from 0 over a ≥ 200k-event log',
  run: (): Promise<FigureResult> =>
    withDayLogCopy('redecide', 'msgx-bench-redecide', async (log, db, pool) => {
      const messages = await fillInbox(db.url);
      if (messages !== log.events) throw new Error(`inbox holds ${messages} messages for ${log.events} events`);
      const cfg = loadConfig({ ...BENCH_ENV, MSGX_DATABASE_URL: db.url });
      progress('redecide: baseline, rebuildFlights on the same log');
      const cpu0 = await cpuNow(pool, db.name);
      const main0 = mainThreadCpu();
      const t0 = nowMs();
      const rebuilt = await rebuildFlights({ pool, clock: systemClock, log: benchLogger().child({ role: 'rebuild' }) });
      const rebuildSeconds = (nowMs() - t0) / 1000;
      const rebuildMain = mainThreadCpu() - main0;
      const rebuildCpu = await cpuSince(pool, db.name, cpu0);
      if (!rebuilt.ok) throw new Error('rebuild failed');
      progress('redecide: runRedecide --from 0 (pages read and decoded by the worker thread, as msgx redecide does)');
      const cpu1 = await cpuNow(pool, db.name);
      const main1 = mainThreadCpu();
      const t1 = nowMs();
      // databaseUrl: the worker page reader, as `msgx redecide` runs it (src/cli/redecideCommand.ts passes
      // the runtime's URL); without it every page would be read and decoded on the deciding thread.
      const { report } = await runRedecide(pool, { from: { position: '0' } }, { cfg, databaseUrl: db.url });
      const seconds = (nowMs() - t1) / 1000;
      const redecideMain = mainThreadCpu() - main1;
      // The page worker's backend connects and ends during the run: its CPU is not in postgresSeconds.
      const redecideCpu = await cpuSince(pool, db.name, cpu1);
      const events = Number(report.to) - Number(report.from);
      const rate = events / seconds;
      const baseRate = rebuilt.events / rebuildSeconds;
      const empty = report.differingMessages.length === 0 && report.differingFlights.length === 0 && report.replayableMessages.length === 0;
      if (!empty) {
        progress(`redecide: NOT EMPTY — ${report.differingMessages.length} messages, ${report.differingFlights.length} flights, ` +
          `${report.replayableMessages.length} replayable; first: ${JSON.stringify(report.differingMessages[0] ?? report.differingFlights[0]).slice(0, 400)}`);
      }
      return {
        rows: [
          row('events/s', { value: rate, unit: 'ev/s' }, { value: baseRate, unit: 'ev/s', what: 'msgx rebuild flights, same log' }, 'higher', {
            text: '≥ 0.5× rebuild, empty report',
            met: rate >= baseRate / 2 && empty,
          }),
        ],
        details: {
          events,
          decided: report.decided,
          redecideSeconds: round(seconds, 2),
          rebuildSeconds: round(rebuildSeconds, 2),
          // CPU seconds: the main thread (it decides / folds), the whole node process (+ the page worker), PostgreSQL.
          redecideCpu: { mainThread: round(redecideMain, 2), node: round(redecideCpu.nodeSeconds, 2), postgres: round(redecideCpu.postgresSeconds, 2) },
          rebuildCpu: { mainThread: round(rebuildMain, 2), node: round(rebuildCpu.nodeSeconds, 2), postgres: round(rebuildCpu.postgresSeconds, 2) },
          differingMessages: report.differingMessages.length,
          differingFlights: report.differingFlights.length,
          replayableMessages: report.replayableMessages.length,
        },
      };
    }),
};
