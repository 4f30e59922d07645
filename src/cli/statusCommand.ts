import { parseArgs } from 'node:util';
import { formatOutward } from '../domain/time.ts';
import { systemClock } from '../platform/clock.ts';
import { modeName, readRunMode } from '../platform/runMode.ts';
import { withRuntime } from '../platform/runtime.ts';
import { pipelineStatus, type PipelineStatus } from '../readModel/pipelineStatus.ts';
import type { Command } from './commands.ts';

export const statusCommand: Command = {
  summary: 'print backlog, head message, failed/dead/parked counts, open gaps and log positions (--json)',
  usage: '[--json]',
  help: 'Prints the pipeline status on stdout (--json: as JSON, e.g. for jq). Beside a running embedded msgx it\nconnects to that msgx\'s server and leaves it running.',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({ args: [...args], options: { json: { type: 'boolean', default: false } }, strict: true });
    return withRuntime(cfg, log, { poolMax: 1, command: 'status' }, async (rt) => {
      const s = statusView(await pipelineStatus(rt.pool, { now: systemClock.now(), tz: cfg.airportTz }));
      const mode = await readRunMode(rt.pool);
      process.stdout.write(
        values.json
          ? JSON.stringify(withOffsets({ ...s, mode: modeName(mode), shadow: mode }, cfg.airportTz), null, 2) + '\n'
          : formatMode(mode, cfg.airportTz) + formatStatus(s, systemClock.now(), cfg.airportTz),
      );
      return 0;
    });
  },
};

/** An instant as every outward time shows it: airport local time with its offset (interface.md). */
const shown = (d: Date, tz: string): string => formatOutward(d.toISOString(), tz);

/** `value` with every Date shown with the airport offset (the --json output; JSON would print UTC). */
export function withOffsets(value: unknown, tz: string): unknown {
  if (value instanceof Date) return shown(value, tz);
  if (Array.isArray(value)) return value.map((v) => withOffsets(v, tz));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withOffsets(v, tz)]));
  return value;
}

/** The mode line of `msgx status` (docs/contract/design.md §11). */
export function formatMode(m: Awaited<ReturnType<typeof readRunMode>>, tz: string): string {
  if (m.shadow) return `mode           SHADOW since ${m.shadowSince ? shown(m.shadowSince, tz) : '?'} (no write-back, no COUTMSGS, topics prefixed '${m.topicPrefix}')\n`;
  if (m.cutoverAt) return `mode           production, cut over from shadow at ${shown(m.cutoverAt, tz)} (shadow decisions up to position ${m.cutoverPosition})\n`;
  return 'mode           production\n';
}

/** What `msgx status` shows (text and --json) of the pipeline status. */
export type StatusView = Pick<PipelineStatus, 'backlog' | 'head' | 'counts' | 'gaps' | 'lastPosition' | 'backfillPending' | 'skippedToday' | 'writer'> & {
  readonly watermark: string;
  readonly projections: readonly { readonly name: string; readonly position: string }[];
};

function statusView(s: PipelineStatus): StatusView {
  const { backlog, head, counts, gaps, watermark, lastPosition, projections, backfillPending, skippedToday, writer } = s;
  return {
    backlog, head, counts, gaps, skippedToday, writer,
    watermark: watermark ?? '0',
    lastPosition,
    projections: projections.map(({ name, position }) => ({ name, position })),
    backfillPending,
  };
}

export function formatStatus(s: StatusView, now: Date, tz: string): string {
  const age = (d: Date) => `${Math.max(0, Math.round((now.getTime() - d.getTime()) / 1000))} s`;
  const lines = [`backlog        ${s.backlog} unfinished (PENDING + FAILED)`];
  if (s.head) {
    const h = s.head;
    lines.push(
      `head           ${h.msgId} ${h.state}, attempts ${h.attempts}, age ${age(h.ingestedAt)}` +
        (h.nextAttemptAt ? `, next try ${shown(h.nextAttemptAt, tz)}` : '') +
        (h.blockedByGap ? ', waiting for an open gap below it' : ''),
    );
    if (h.errorClass || h.lastError) lines.push(`               ${h.errorClass ?? ''} ${h.lastError ?? ''}`.trimEnd());
  } else {
    lines.push('head           none (nothing unfinished)');
  }
  const failed = s.counts.filter((c) => c.state === 'FAILED' || c.state === 'DEAD' || c.state === 'PARKED');
  const totals = s.counts.filter((c) => c.state !== 'FAILED' && c.state !== 'DEAD' && c.state !== 'PARKED');
  lines.push(`states         ${totals.map((c) => `${c.state} ${c.n}`).join(', ') || '-'}`);
  lines.push(`failed/dead/parked ${failed.map((c) => `${c.state}(${c.errorClass}) ${c.n}`).join(', ') || 'none'}`);
  lines.push(`skipped today  ${s.skippedToday} (since midnight, airport time)`);
  const w = s.writer;
  lines.push(`writer         ${w.lockHeld ? `${w.holder ?? 'held'}${w.since ? ` since ${shown(w.since, tz)}` : ''}` : 'no writer holds the lock'}, epoch ${w.epoch}, ${w.standbys} standby waiting`);
  lines.push(
    `gaps           ${s.gaps.open} open` +
      (s.gaps.lowest ? ` (lowest ${s.gaps.lowest}, oldest ${age(s.gaps.oldestOpenedAt!)})` : '') +
      `, ${s.gaps.expired} expired`,
  );
  lines.push(`watermark      ${s.watermark}`);
  lines.push(`log position   ${s.lastPosition}`);
  // The positions are read after the log head: a projector may have passed that head meanwhile (lag 0, never negative).
  const lag = (position: string): bigint => (BigInt(s.lastPosition) > BigInt(position) ? BigInt(s.lastPosition) - BigInt(position) : 0n);
  for (const p of s.projections) lines.push(`projection     ${p.name} at ${p.position} (lag ${lag(p.position)})`);
  lines.push(`backfill       ${s.backfillPending} pending`);
  return lines.join('\n') + '\n';
}
