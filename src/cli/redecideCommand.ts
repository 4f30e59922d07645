import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { createLogger } from '../platform/logger.ts';
import { openRuntime } from '../platform/runtime.ts';
import { applyCorrections } from '../write/redecide/applyCorrections.ts';
import { runRedecide, type RangeBound } from '../write/redecide/runRedecide.ts';
import type { Command } from './commands.ts';
import { UsageError } from './usageError.ts';
import { progressReporter } from './redecideProgress.ts';
import { formatReport } from './redecideReport.ts';
import { startOperation } from '../operations/progress.ts';
import { operatorName } from './operator.ts';

/** Exit code after Ctrl-C (128 + SIGINT), as shells report it. */
const CANCELLED = 130;

function bound(name: string, text: string): RangeBound {
  if (/^\d+$/.test(text)) return { position: String(BigInt(text)) };
  const instant = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(instant.getTime())) {
    throw new UsageError(`--${name} must be a log position (a whole number) or an ISO-8601 instant (got '${text}')`);
  }
  return { instant };
}

/** The arguments the console shows beside the progress. */
function redecideDetail(v: { from?: string; to?: string; flight?: string[]; apply?: boolean }): string {
  return [`--from ${v.from}`, v.to ? `--to ${v.to}` : '', v.flight?.length ? `--flight ${v.flight.join(',')}` : '', v.apply ? '--apply' : '']
    .filter((s) => s !== '')
    .join(' ');
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export const redecideCommand: Command = {
  summary: 'decide history again with today\'s code and report what differs: --from <position|instant> [--to …] [--flight FLID…] [--json] [--apply [--yes]] [--page-size N]',
  async run(args, { cfg }) {
    const { values } = parseArgs({
      args: [...args],
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        flight: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
        apply: { type: 'boolean', default: false },
        yes: { type: 'boolean', default: false },
        operator: { type: 'string' },
        'page-size': { type: 'string' },
      },
      strict: true,
    });
    if (values.from === undefined) throw new UsageError('--from <position|instant> is required (0 = the whole log)');
    const from = bound('from', values.from);
    const to = values.to === undefined ? undefined : bound('to', values.to);
    const flids = (values.flight ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
    if (flids.some((f) => !/^\d+$/.test(f))) throw new UsageError(`--flight takes FLIDs (whole numbers), got '${(values.flight ?? []).join(',')}'`);
    const pageSize = values['page-size'] === undefined ? undefined : Number(values['page-size']);
    if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 100_000)) {
      throw new UsageError(`--page-size must be a whole number 1-100000 (got '${values['page-size']}')`);
    }
    if (values.apply && to !== undefined) {
      throw new UsageError('--apply corrects flights as they stand at the log head: leave out --to');
    }
    if (values.apply && !values.yes && !process.stdin.isTTY) {
      throw new UsageError('--apply appends corrections; without a terminal to confirm on, add --yes');
    }
    // stdout carries the report only (with --json one object): logs go to stderr.
    const log = createLogger(cfg.logLevel, process.stderr);
    const rt = await openRuntime(cfg, log, { poolMax: 2 });
    const abort = new AbortController();
    const onSignal = () => abort.abort();
    const foreign = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
    for (const [sig, ls] of Object.entries(foreign)) for (const l of ls) process.off(sig, l);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const progress = progressReporter(process.stderr, rt.clock);
    const operator = operatorName(values.operator);
    // The console shows it while it runs (operation_progress), whichever process this is.
    const recorder = await startOperation(rt.pool, rt.clock, log, { kind: 'redecide', startedBy: operator, detail: redecideDetail(values) });
    try {
      const run = await runRedecide(rt.pool, { from, ...(to ? { to } : {}) }, {
        cfg: rt.cfg,
        databaseUrl: rt.databaseUrl,
        signal: abort.signal,
        ...(pageSize !== undefined ? { pageSize } : {}),
        ...(flids.length > 0 ? { flights: new Set(flids) } : {}),
        onProgress: (p) => {
          progress.report(p);
          recorder.update({ phase: 'decide', done: p.events, total: p.total });
        },
      });
      progress.done();
      log.info({ workerPages: run.pages.worker, inlinePages: run.pages.inline, pageWorker: run.pages.workerModule }, 'redecide: pages read');
      let report = run.report;
      const differ = `${report.differingMessages.length} message(s) and ${report.differingFlights.length} flight(s) differ (report ${report.reportId})`;
      if (!values.apply) {
        process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
        await recorder.finish('done', differ);
        return 0;
      }
      if (!values.json) process.stdout.write(formatReport(report));
      if (report.differingFlights.length === 0) {
        if (values.json) process.stdout.write(`${JSON.stringify({ ...report, applied: [] }, null, 2)}\n`);
        else process.stdout.write('nothing to correct: no flight differs\n');
        await recorder.finish('done', `${differ}; nothing to correct`);
        return 0;
      }
      if (!values.yes && !(await confirm(`append ${report.differingFlights.length} Correction decision(s)? [y/N] `))) {
        process.stderr.write('not applied\n');
        await recorder.finish('cancelled', `${differ}; not applied (not confirmed)`);
        return 1;
      }
      recorder.update({ phase: 'apply', done: report.differingFlights.length, total: report.differingFlights.length });
      const done = await applyCorrections(rt.pool, run.redecision, {
        requestedBy: operator,
        config: { airportTz: rt.cfg.airportTz, identityIncludeDay: rt.cfg.identityIncludeDay, airportIata: rt.cfg.airportIata },
        now: rt.clock.now(),
      });
      report = done.report;
      const applied = [...done.positions].map(([flid, position]) => ({ flid, position }));
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ ...report, applied }, null, 2)}\n`);
      } else {
        if (report.to !== run.report.to) process.stdout.write(`(caught up to position ${report.to} before appending)\n`);
        const at = applied.length > 0 ? ` at positions ${applied[0]!.position}..${applied[applied.length - 1]!.position}` : '';
        process.stdout.write(`appended ${applied.length} Correction decision(s)${at} (report ${report.reportId})\n`);
      }
      await recorder.finish('done', `${differ}; appended ${applied.length} Correction decision(s)`);
      return 0;
    } catch (err) {
      if (abort.signal.aborted) {
        progress.done();
        process.stderr.write('redecide cancelled: nothing was written\n');
        await recorder.finish('cancelled', 'cancelled: nothing was written');
        return CANCELLED;
      }
      await recorder.finish('failed', err instanceof Error ? err.message : String(err));
      throw err;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await rt.close();
      for (const [sig, ls] of Object.entries(foreign)) for (const l of ls) process.on(sig, l);
      log.flush();
    }
  },
};
