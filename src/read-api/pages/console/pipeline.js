// The pipeline at a glance: problem tiles (coloured when not zero, each a link to its list), the
// last hour as two small charts (from the log and proc_state), the writer, the mode and the
// consistency sentinel, then projections, outbox and operations (docs/operations.md, "Console").
import { Component, h } from '/assets/vendor/preact.mjs';
import { gql } from './api.js';
import { stamp } from './format.js';
import { OperationsTable, OPERATIONS_FIELDS } from './operations.js';
import { cell, fmtAge, stat, table } from './widgets.js';

const PIPELINE = `{ pipeline { mode shadow { active topicPrefix since } backlog uncopied failed dead parked skippedToday headAgeSeconds logPosition inboxWatermark
  head { id state errorClass attempts lastError } writer { lockHeld holder since epoch standbys }
  consistency { checkedAt sampled mismatches trigger }
  projections { name position lag } outbox { target pending dead oldestPendingAgeSeconds } }
  pipelineHistory(minutes: 60) { at decisions backlog }
  ${OPERATIONS_FIELDS} }`;

const POLL_MS = 2000;

/** A problem count: a link to the list behind it, red (skipped: amber) when not zero. */
const tile = (label, n, href, testid, tone = 'bad') =>
  h('a', { class: `tile ${n ? tone : 'ok'}`, href, 'data-testid': testid }, h('span', { class: 'n' }, String(n)), h('span', { class: 'label' }, label));

/** A hand-drawn SVG sparkline of `values` (one per minute), with its last and highest value in words. */
export function sparkline(label, values, testid) {
  const w = 240;
  const hgt = 40;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const pts = values.map((v, i) => `${(i * step).toFixed(1)},${(hgt - (v / max) * (hgt - 2) - 1).toFixed(1)}`).join(' ');
  const last = values.length ? values[values.length - 1] : 0;
  const summary = `${label}: now ${last}, highest ${Math.max(0, ...values)} in the last ${values.length} min`;
  return h('figure', { class: 'spark', 'data-testid': testid },
    h('svg', { viewBox: `0 0 ${w} ${hgt}`, width: w, height: hgt, role: 'img', 'aria-label': summary },
      h('polyline', { points: pts, fill: 'none', stroke: 'currentColor', 'stroke-width': 1.5 })),
    h('figcaption', null, summary));
}

export class PipelineView extends Component {
  constructor(props) {
    super(props);
    this.state = { data: null, error: null };
  }
  componentDidMount() {
    this.load();
    this.timer = setInterval(() => this.load(), POLL_MS);
  }
  componentWillUnmount() {
    clearInterval(this.timer);
  }
  async load() {
    try {
      this.setState({ data: await gql(PIPELINE), error: null });
    } catch (err) {
      this.setState({ error: err.message });
    }
  }
  render(_p, { data, error }) {
    if (!data) return h('section', { 'data-testid': 'pipeline' }, error ? h('p', { class: 'error' }, error) : 'Loading…');
    const p = data.pipeline;
    const w = p.writer;
    const c = p.consistency;
    return h(
      'section',
      { 'data-testid': 'pipeline' },
      h('h2', null, 'Pipeline'),
      h('div', { class: 'tiles' },
        tile('parked', p.parked, '#/messages?states=PARKED', 'tile-parked'),
        tile('dead', p.dead, '#/messages?states=DEAD', 'tile-dead'),
        tile('failed (retrying)', p.failed, '#/messages?states=FAILED', 'tile-failed'),
        tile('skipped today', p.skippedToday, '#/messages?states=SKIPPED', 'tile-skipped', 'warn'),
        tile('outbox dead', p.outbox.reduce((n, o) => n + o.dead, 0), '#/pipeline', 'tile-outbox-dead')),
      h('div', { class: 'charts' },
        sparkline('decisions per minute', data.pipelineHistory.map((m) => m.decisions), 'chart-decisions'),
        sparkline('backlog', data.pipelineHistory.map((m) => m.backlog), 'chart-backlog')),
      h('dl', { class: 'stats' },
        stat('backlog', p.backlog, 'backlog'),
        stat('not copied yet', p.uncopied === null ? 'mailbox unreadable' : p.uncopied),
        stat('head', p.head ? `${p.head.id} ${p.head.state}${p.head.attempts ? ` (${p.head.attempts} attempts)` : ''}` : 'none', 'head'),
        stat('head age', fmtAge(p.headAgeSeconds)),
        stat('writer', w.lockHeld ? `${w.holder || 'held'}${w.since ? ` since ${stamp(w.since)}` : ''}` : 'no writer holds the lock (a standby takes it within seconds)', 'writer'),
        stat('standby', w.standbys === 0 ? 'none waiting' : `${w.standbys} waiting for the writer lock`, 'standby'),
        stat('mode', p.mode === 'shadow' || p.shadow?.active ? `SHADOW (topics ${p.shadow.topicPrefix}…)` : p.mode, 'mode'),
        stat('consistency', c ? `${c.mismatches === 0 ? 'ok' : `${c.mismatches} mismatches`} — ${c.sampled} flights, ${stamp(c.checkedAt)} (${c.trigger})` : 'not checked yet', 'consistency'),
        stat('log position', p.logPosition, 'log-position'),
        stat('watermark', p.inboxWatermark),
      ),
      c?.mismatches ? h('p', { class: 'error' }, `The last consistency check found ${c.mismatches} mismatches: msgx verify lists them.`) : null,
      p.head?.lastError ? h('p', { class: 'error' }, 'head: ', h('a', { href: `#/message/${p.head.id}` }, p.head.id), ` ${p.head.errorClass || ''} ${p.head.lastError}`) : null,
      h('h3', null, 'Projections'),
      table('grid', ['projection', 'position', 'lag'], p.projections.map((x) => h('tr', null, cell(x.name), cell(x.position), cell(x.lag)))),
      h('h3', null, 'Outbox'),
      table('grid', ['target', 'pending', 'dead', 'oldest pending'],
        p.outbox.map((o) => h('tr', { class: o.dead ? 'bad' : '' }, cell(o.target), cell(o.pending), cell(o.dead), cell(fmtAge(o.oldestPendingAgeSeconds))))),
      h('h3', null, 'Rebuilds and re-decisions'),
      h(OperationsTable, { rows: data.operationProgress }),
      error ? h('p', { class: 'error' }, `last refresh failed: ${error}`) : null,
    );
  }
}
