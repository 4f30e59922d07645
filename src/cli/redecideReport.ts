/** The readable form of a redecide report (stdout): counts, then the first differing messages and flights. */
import type { RedecideReport } from '../write/redecide/redecision.ts';
import type { OutcomeView } from '../write/redecide/outcomeView.ts';

const SHOWN = 10;

const outcome = (o: OutcomeView): string => {
  const cls = o.errorClass ? `(${o.errorClass})` : '';
  const types = o.changes.map((c) => c.type);
  return `${o.kind}${cls}${types.length > 0 ? ` [${summarize(types)}]` : ''}`;
};

/** `FlightUpdated×3, GatesReplaced` */
function summarize(types: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].map(([t, n]) => (n > 1 ? `${t}×${n}` : t)).join(', ');
}

const value = (v: unknown): string => {
  const s = v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

export function formatReport(r: RedecideReport): string {
  const lines = [
    `redecide ${r.reportId}: positions ${r.from} < p <= ${r.to}, ${r.decided} messages decided again`,
    `  ${r.differingMessages.length} message(s) with another outcome, ${r.differingFlights.length} flight(s) with another end state` +
      (r.replayableMessages.length > 0 ? `, ${r.replayableMessages.length} failed message(s) that decide now (replay them)` : ''),
  ];
  if (r.differingMessages.length === 0 && r.differingFlights.length === 0 && r.replayableMessages.length === 0) {
    lines.push('  nothing differs: today\'s code decides this history as the log does');
    return `${lines.join('\n')}\n`;
  }
  if (r.differingMessages.length > 0) {
    lines.push('', 'messages (log -> today):');
    for (const m of r.differingMessages.slice(0, SHOWN)) lines.push(`  ${m.msgId.padStart(10)}  ${outcome(m.before)}  ->  ${outcome(m.after)}`);
    if (r.differingMessages.length > SHOWN) lines.push(`  … and ${r.differingMessages.length - SHOWN} more (--json for all)`);
  }
  if (r.differingFlights.length > 0) {
    lines.push('', 'flights (field: log -> today):');
    for (const f of r.differingFlights.slice(0, SHOWN)) {
      lines.push(`  ${f.flid}`);
      for (const [name, d] of Object.entries(f.fields)) lines.push(`    ${name.padEnd(22)} ${value(d.before)}  ->  ${value(d.after)}`);
      for (const [name, d] of Object.entries(f.lists)) lines.push(`    ${name.padEnd(22)} ${d.before.length} item(s)  ->  ${d.after.length} item(s), differing`);
    }
    if (r.differingFlights.length > SHOWN) lines.push(`  … and ${r.differingFlights.length - SHOWN} more (--json for all)`);
  }
  if (r.replayableMessages.length > 0) {
    lines.push('', 'failed messages that decide now (not corrected: `msgx replay --class … --ids …`):');
    for (const m of r.replayableMessages.slice(0, SHOWN)) lines.push(`  ${m.msgId.padStart(10)}  ${outcome(m.before)}  ->  ${outcome(m.after)}`);
    if (r.replayableMessages.length > SHOWN) lines.push(`  … and ${r.replayableMessages.length - SHOWN} more (--json for all)`);
  }
  return `${lines.join('\n')}\n`;
}
