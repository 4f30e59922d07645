// Messages by state (SKIPPED and SUCCEEDED too), type/subtype, sender and ingest time — the filters
// live in the URL (#/messages?states=PARKED&type=FLOP), every id is a link (docs/operations.md, "Console").
import { Component, h } from '/assets/vendor/preact.mjs';
import { admin, gql } from './api.js';
import { stamp } from './format.js';
import { hashQuery, setHashQuery } from './route.js';
import { cell, table } from './widgets.js';

const STATES = ['PARKED', 'DEAD', 'FAILED', 'PENDING', 'SKIPPED', 'SUCCEEDED'];
const LIST = `query($states: [String!]!, $type: String, $subtype: String, $sender: String, $since: DateTime, $until: DateTime) {
  messagesInState(states: $states, type: $type, subtype: $subtype, sender: $sender, since: $since, until: $until, first: 500) {
  id state errorClass lastError attempts sender type subtype ingestedAt decisions { flids } } }`;
const POLL_MS = 3000;

/** `2025-03-14T10:00` (a datetime-local input, airport time) → an instant with the offset of `sample`. */
const withOffset = (local, offset) => (local ? `${local}:00${offset}` : null);

export class MessagesView extends Component {
  constructor(props) {
    super(props);
    this.state = { rows: [], error: null, note: null, offset: '+00:00' };
  }
  componentDidMount() {
    this.load();
    this.timer = setInterval(() => this.load(), POLL_MS);
  }
  componentDidUpdate(prev) {
    if (prev.query !== this.props.query) this.load();
  }
  componentWillUnmount() {
    clearInterval(this.timer);
  }
  filters() {
    const q = hashQuery();
    const states = (q.states || 'PARKED,DEAD').split(',').filter((s) => STATES.includes(s));
    return { q, states };
  }
  async load() {
    const { q, states } = this.filters();
    if (states.length === 0) return this.setState({ rows: [] });
    const v = (s) => (s?.trim() ? s.trim().toUpperCase() : null);
    try {
      const d = await gql(LIST, { states, type: v(q.type), subtype: v(q.subtype), sender: v(q.sender), since: withOffset(q.since, this.state.offset), until: withOffset(q.until, this.state.offset) });
      const rows = d.messagesInState.filter(Boolean);
      const sample = rows.find((m) => m.ingestedAt);
      this.setState({ rows, error: null, offset: sample ? sample.ingestedAt.slice(-6) : this.state.offset });
    } catch (err) {
      this.setState({ error: err.message });
    }
  }
  async replay(m) {
    const cls = m.state === 'DEAD' && m.errorClass === 'EXHAUSTED' ? 'EXHAUSTED' : m.errorClass;
    try {
      const r = await admin('replay', { class: cls, ids: [m.id] });
      this.setState({ note: `replayed ${r.replayed.map((x) => x.msgId).join(', ') || 'nothing'} as ${r.requestedBy}` });
      this.load();
    } catch (err) {
      this.setState({ note: `replay refused: ${err.message}` });
    }
  }
  render({ adminOn }, { rows, error, note }) {
    const { q, states } = this.filters();
    const toggle = (s, on) => setHashQuery({ states: STATES.filter((x) => (x === s ? on : states.includes(x))).join(',') || 'none' });
    const text = (key, label, attrs = {}) => h('label', null, `${label} `, h('input', { value: q[key] || '', 'data-testid': `messages-${key}`, onChange: (e) => setHashQuery({ [key]: e.target.value }), ...attrs }));
    return h(
      'section',
      { 'data-testid': 'problems' },
      h('h2', null, 'Messages'),
      h('div', { class: 'filters' },
        STATES.map((s) => h('label', null, h('input', { type: 'checkbox', checked: states.includes(s), 'data-testid': `state-${s}`, onChange: (e) => toggle(s, e.target.checked) }), ` ${s}`))),
      h('div', { class: 'filters' },
        text('type', 'type', { size: 6 }), text('subtype', 'subtype', { size: 6 }), text('sender', 'sender', { size: 8 }),
        text('since', 'ingested from', { type: 'datetime-local' }), text('until', 'to', { type: 'datetime-local' })),
      note ? h('p', { class: 'note', 'data-testid': 'action-note' }, note) : null,
      error ? h('p', { class: 'error' }, error) : null,
      h('p', { 'data-testid': 'messages-count' }, `${rows.length}${rows.length === 500 ? ' (the newest 500)' : ''} messages`),
      table('grid', ['id', 'state', 'class', 'type', 'sender', 'ingested', 'flights', 'attempts', 'reason', ''],
        rows.map((m) => h('tr', { 'data-testid': `problem-${m.id}`, class: `m-${m.state.toLowerCase()}` },
          h('td', null, h('a', { href: `#/message/${m.id}` }, m.id)),
          h('td', null, h('span', { class: `state st-${m.state.toLowerCase()}` }, m.state)),
          cell(m.errorClass), cell(`${m.type || '?'}/${m.subtype || '?'}`), cell(m.sender), cell(stamp(m.ingestedAt)),
          h('td', null, [...new Set(m.decisions.flatMap((d) => d.flids))].slice(0, 5).map((f) => h('a', { href: `#/flight/${f}`, class: 'flid' }, f))),
          cell(m.attempts),
          h('td', { class: 'reason' }, m.lastError || '–'),
          h('td', null, adminOn && ['DEAD', 'PARKED', 'FAILED'].includes(m.state) && m.errorClass !== 'MALFORMED' ? h('button', { 'data-testid': `replay-${m.id}`, onClick: () => this.replay(m) }, 'Replay') : null)))),
      rows.length === 0 ? h('p', null, 'None.') : null,
    );
  }
}
