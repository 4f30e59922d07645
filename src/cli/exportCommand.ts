import { parseArgs } from 'node:util';
import { csvHeader, csvLine, exportRecord, ndjsonLine } from '../domain/flightExport.ts';
import { withRuntime } from '../platform/runtime.ts';
import type { Command } from './commands.ts';
import { dayFlights } from '../projections/dayFlights.ts';
import { isDay } from './export/day.ts';
import { UsageError } from './usageError.ts';

export const exportCommand: Command = {
  summary: 'write the flights of one operation day (read model) as CSV or NDJSON on stdout: export flights --day D',
  usage: 'flights --day YYYY-MM-DD [--format csv|ndjson]',
  help:
    'Writes every flight of the day (deleted ones included, flagged) in flid order, one row per flight, with\n' +
    'the GraphQL Flight names in a fixed column order (docs/operations.md "Export and compare"); instants in\n' +
    'airport time with offset, lists as JSON. Diff it against the legacy system\'s output with ordinary tools.',
  async run(args, { cfg, log }) {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { day: { type: 'string' }, format: { type: 'string', default: 'csv' } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1 || positionals[0] !== 'flights') throw new UsageError("what to export: 'flights' (msgx export flights --day YYYY-MM-DD)");
    if (values.day === undefined || !isDay(values.day)) throw new UsageError(`--day must be an operation day YYYY-MM-DD (got ${values.day === undefined ? 'nothing' : `'${values.day}'`})`);
    const { day, format } = values;
    if (format !== 'csv' && format !== 'ndjson') throw new UsageError(`--format must be csv or ndjson (got '${format}')`);

    return withRuntime(cfg, log, { poolMax: 2, command: 'export' }, async (rt) => {
      const flights = await dayFlights(rt.readPool, day);
      const out: string[] = format === 'csv' ? [csvHeader()] : [];
      for (const f of flights) {
        const r = exportRecord(f, cfg.airportTz);
        out.push(format === 'csv' ? csvLine(r) : ndjsonLine(r));
      }
      process.stdout.write(out.join(''));
      log.info({ day, flights: flights.length, format }, 'exported');
      return 0;
    });
  },
};
