import { refuseArchivedAfter } from '../log/archivedHistory.ts';
import { parseArgs } from 'node:util';
import { runCheck, type CheckProgress, type Selection } from '../consistency/runCheck.ts';
import { recordCheck } from '../consistency/recordCheck.ts';
import { formatReport } from '../consistency/report.ts';
import { withRuntime } from '../platform/runtime.ts';
import { checkSnapshot } from '../write/snapshot/checkSnapshot.ts';
import type { Command } from './commands.ts';
import { rateAndEta } from './progressLine.ts';
import { UsageError } from './usageError.ts';
import { aidxRules } from '../domain/aidxOut/aidxMessage.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const FLID = /^\d{1,19}$/;

/** The selection the options name (usage errors → exit 2). */
export function selectionOf(values: {
  all?: boolean; sample?: string; day?: string; flight?: string[];
}, positionals: readonly string[]): Selection {
  const flids = [...(values.flight ?? []), ...positionals];
  if (positionals.length > 0 && values.flight === undefined) {
    throw new UsageError(`unexpected argument(s) ${positionals.join(' ')} (flights are named with --flight FLID…)`);
  }
  const picked = [values.all ? '--all' : null, values.sample !== undefined ? '--sample' : null, flids.length > 0 ? '--flight' : null].filter(Boolean);
  if (picked.length > 1) throw new UsageError(`${picked.join(' and ')} cannot be combined`);
  if (values.day !== undefined) {
    const ok = DAY.test(values.day) && new Date(`${values.day}T00:00:00Z`).toISOString().startsWith(values.day);
    if (!ok) throw new UsageError(`--day must be YYYY-MM-DD (got '${values.day}')`);
    if (values.all || flids.length > 0) throw new UsageError('--day selects the flights of one operation day: use it alone or with --sample');
  }
  if (values.sample !== undefined) {
    const ratio = Number(values.sample);
    if (!/^\d*\.?\d+$/.test(values.sample) || !(ratio > 0 && ratio <= 1)) {
      throw new UsageError(`--sample must be a ratio above 0 and at most 1, e.g. 0.01 (got '${values.sample}')`);
    }
    return values.day === undefined ? { kind: 'sample', ratio } : { kind: 'sample', ratio, day: values.day };
  }
  if (flids.length > 0) {
    const bad = flids.filter((f) => !FLID.test(f));
    if (bad.length > 0) throw new UsageError(`--flight takes FLIDs (whole numbers), got ${bad.join(', ')}`);
    return { kind: 'flights', flids: flids.map((f) => BigInt(f).toString()) };
  }
  if (values.day !== undefined) return { kind: 'day', day: values.day };
  return { kind: 'all' };
}

/** One progress line; `elapsedSeconds` since the check started gives the fold's rate and time left. */
export function progressLine(p: CheckProgress, elapsedSeconds: number): string {
  switch (p.phase) {
    case 'fold': {
      const pct = Number(p.upTo) > 0 ? Math.floor((Number(p.position) / Number(p.upTo)) * 100) : 100;
      return `verify: folding the log ${p.position}/${p.upTo} (${pct}%), ${p.events} events, ${rateAndEta(Number(p.position), Number(p.upTo), elapsedSeconds, 'position')}`;
    }
    case 'select':
      return `verify: snapshot taken, log folded up to position ${p.upTo}; selecting flights`;
    case 'done':
      return `verify: done (${p.flights ?? 0} flights)`;
    default:
      return `verify: checking ${p.phase}${p.flights === undefined ? '' : ` (${p.flights} flights)`}`;
  }
}

export const verifyCommand: Command = {
  summary: 'check read models, outbox and write-backs against the log: [--all | --sample RATIO] [--day YYYY-MM-DD] [--flight FLID…] [--json] (exit 1 on a mismatch)',
  async run(args, { cfg, log }) {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        all: { type: 'boolean' },
        sample: { type: 'string' },
        day: { type: 'string' },
        flight: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
        record: { type: 'boolean', default: false },
      },
      strict: true,
    });
    const selection = selectionOf(values, positionals);
    return withRuntime(cfg, log, { poolMax: 2 }, async (rt) => {
      // Every check folds the log from position 0 (docs/recovery.md "Archived history").
      await refuseArchivedAfter(rt.pool, '0', 'msgx verify');
      let lastFold = 0;
      const started = rt.clock.now().getTime();
      const report = await runCheck(rt.pool, {
        selection,
        clock: rt.clock,
        snapshot: checkSnapshot,
        ...(aidxRules(cfg) ? { aidx: aidxRules(cfg) } : {}),
        onProgress: (p) => {
          // The fold reports every page: about one line a second is enough.
          if (p.phase === 'fold') {
            const now = rt.clock.now().getTime();
            if (now - lastFold < 1000) return;
            lastFold = now;
          }
          process.stderr.write(`${progressLine(p, (rt.clock.now().getTime() - started) / 1000)}\n`);
        },
      });
      if (values.record) await recordCheck(rt.pool, 'cli', report);
      process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      return report.mismatches.length === 0 ? 0 : 1;
    });
  },
};
