// Rebuilds and re-decisions (Query.operationProgress): whichever process runs them — msgx rebuild,
// msgx redecide, the console's Rebuild button — they write their progress to the database about
// once a second; the Pipeline view polls it with the rest of the pipeline.
import { h } from '/assets/vendor/preact.mjs';
import { cell, fmtAge, table } from './widgets.js';

export const OPERATIONS_FIELDS = `operationProgress(withinHours: 24, first: 10) {
  id kind detail startedBy host pid startedAt updatedAt finishedAt state phase done total percent message }`;

const time = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+/, '').slice(0, 19) : '–');
const ageOf = (iso) => (iso ? Math.max(0, (Date.now() - Date.parse(iso)) / 1000) : null);

function progressCell(o) {
  const count = o.total === null ? `${o.done}` : `${o.done}/${o.total}`;
  const pct = o.percent === null ? '' : ` (${Math.floor(o.percent)}%)`;
  return h(
    'td',
    { 'data-testid': `operation-progress-${o.id}` },
    o.percent === null ? null : h('progress', { max: 100, value: Math.floor(o.percent) }),
    ` ${o.phase ? `${o.phase} ` : ''}${count}${pct}`,
  );
}

export function OperationsTable({ rows }) {
  if (!rows || rows.length === 0) return h('p', { 'data-testid': 'operations-none' }, 'None in the last 24 hours.');
  return table(
    'grid',
    ['kind', 'state', 'progress', 'started', 'by', 'last word', 'outcome'],
    rows.map((o) =>
      h(
        'tr',
        { 'data-testid': `operation-${o.id}`, class: `op ${o.state.toLowerCase()}` },
        h('td', null, o.kind, o.detail ? h('div', { class: 'note' }, o.detail) : null),
        h('td', { 'data-testid': `operation-state-${o.id}` }, o.state),
        progressCell(o),
        cell(time(o.startedAt)),
        cell(`${o.startedBy} (${o.host} pid ${o.pid})`),
        cell(o.finishedAt ? `ended ${time(o.finishedAt)}` : `${fmtAge(ageOf(o.updatedAt))} ago`),
        h('td', { class: 'reason' }, o.message || '–'),
      ),
    ),
  );
}
