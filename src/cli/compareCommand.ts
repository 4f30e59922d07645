import { parseArgs } from 'node:util';
import { redactUrl } from '../platform/config.ts';
import { createPool } from '../platform/db.ts';
import { openRuntime } from '../platform/runtime.ts';
import type { Command } from './commands.ts';
import { compareDays, formatComparison } from './export/compareDays.ts';
import { dayFlights } from '../projections/dayFlights.ts';
import { isDay } from './export/day.ts';
import { UsageError } from './usageError.ts';

export const compareCommand: Command = {
  summary: 'diff the flights of one day with another msgx field by field: compare --day D --with <postgres url> [--json]',
  usage: '--day YYYY-MM-DD --with postgres://… [--json]',
  help:
    'Reads the flights of the day from this msgx\'s read model and from the other msgx\'s database (--with,\n' +
    'read only), and prints every flight that differs: the fields and lists that differ, by GraphQL name, or\n' +
    'that it exists on one side only (the log\'s envelope — stateVersion, lastPosition, lastMsgId, updatedAt —\n' +
    'is not compared). E.g. a shadow and the production instance, or two versions. Exit 0 when they agree,\n' +
    '1 when they differ (like diff), 2 for bad usage. --json: the same as JSON on stdout.',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({
      args: [...args],
      options: { day: { type: 'string' }, with: { type: 'string' }, json: { type: 'boolean', default: false } },
      strict: true,
    });
    if (values.day === undefined || !isDay(values.day)) throw new UsageError(`--day must be an operation day YYYY-MM-DD (got ${values.day === undefined ? 'nothing' : `'${values.day}'`})`);
    const other = values.with;
    if (other === undefined || !/^postgres(ql)?:\/\//.test(other)) throw new UsageError('--with must be the PostgreSQL URL of the other msgx (postgres://…)');

    const rt = await openRuntime(cfg, log, { poolMax: 2, command: 'compare' });
    const there = createPool(other, { max: 2, applicationName: 'msgx-compare' });
    try {
      const [a, b] = await Promise.all([dayFlights(rt.readPool, values.day), dayFlights(there, values.day)]);
      const c = compareDays(values.day, a, b, cfg.airportTz);
      process.stdout.write(
        values.json ? JSON.stringify(c, null, 2) + '\n' : formatComparison(c, redactUrl(rt.databaseUrl), redactUrl(other)),
      );
      return c.differing.length === 0 ? 0 : 1;
    } finally {
      await there.end().catch(() => undefined);
      await rt.close();
    }
  },
};
