// The console's views: preact components written with h() (no build step, no JSX).
import { Component, h } from '/assets/vendor/preact.mjs';
import { admin, gql, subscribe } from './api.js';
import { OperationsTable, OPERATIONS_FIELDS } from './operations.js';
import { cell, fmtAge, stat, table } from './widgets.js';

/** Polls a query while mounted. */
class Polled extends Component {
  constructor(props) {
    super(props);
    this.state = { data: null, error: null };
  }
  componentDidMount() {
    this.load();
    this.timer = setInterval(() => this.load(), 2000);
  }
  componentWillUnmount() {
    clearInterval(this.timer);
  }
  async load() {
    try {
      this.setState({ data: await gql(this.query(), {}), error: null });
    } catch (err) {
      this.setState({ error: err.message });
    }
  }
}

const PIPELINE = `{ pipeline { backlog uncopied failed dead headAgeSeconds logPosition inboxWatermark
  head { id state errorClass attempts lastError }
  projections { name position lag } outbox { target pending dead oldestPendingAgeSeconds } }
  ${OPERATIONS_FIELDS} }`;

export class PipelineView extends Polled {
  query() {
    return PIPELINE;
  }
  render(props, { data, error }) {
    if (!data) return h('section', { 'data-testid': 'pipeline' }, error ? h('p', { class: 'error' }, error) : 'Loading…');
    const p = data.pipeline;
    return h(
      'section',
      { 'data-testid': 'pipeline' },
      h('h2', null, 'Pipeline'),
      h(
        'dl',
        { class: 'stats' },
        stat('backlog', p.backlog, 'backlog'),
        stat('not copied yet', p.uncopied),
        stat('failed', p.failed),
        stat('dead', p.dead, 'dead'),
        stat('head', p.head ? `${p.head.id} ${p.head.state}${p.head.attempts ? ` (${p.head.attempts} attempts)` : ''}` : 'none', 'head'),
        stat('head age', fmtAge(p.headAgeSeconds)),
        stat('log position', p.logPosition, 'log-position'),
        stat('watermark', p.inboxWatermark),
      ),
      p.head && p.head.lastError ? h('p', { class: 'error' }, `head: ${p.head.errorClass || ''} ${p.head.lastError}`) : null,
      h('h3', null, 'Projections'),
      table('grid', ['projection', 'position', 'lag'], p.projections.map((x) => h('tr', null, cell(x.name), cell(x.position), cell(x.lag)))),
      h('h3', null, 'Outbox'),
      table(
        'grid',
        ['target', 'pending', 'dead', 'oldest pending'],
        p.outbox.map((o) => h('tr', null, cell(o.target), cell(o.pending), cell(o.dead), cell(fmtAge(o.oldestPendingAgeSeconds)))),
      ),
      h('h3', null, 'Rebuilds and re-decisions'),
      h(OperationsTable, { rows: data.operationProgress }),
      error ? h('p', { class: 'error' }, `last refresh failed: ${error}`) : null,
    );
  }
}

const PROBLEMS = `query($states: [String!]!) { messagesInState(states: $states, first: 500) {
  id state errorClass lastError attempts sender type subtype ingestedAt } }`;

export class ProblemsView extends Component {
  constructor(props) {
    super(props);
    this.state = { states: { DEAD: true, PARKED: true, FAILED: false }, text: '', rows: [], error: null, note: null };
  }
  componentDidMount() {
    this.load();
    this.timer = setInterval(() => this.load(), 3000);
  }
  componentWillUnmount() {
    clearInterval(this.timer);
  }
  async load() {
    const states = Object.keys(this.state.states).filter((s) => this.state.states[s]);
    if (states.length === 0) return this.setState({ rows: [] });
    try {
      const d = await gql(PROBLEMS, { states });
      this.setState({ rows: d.messagesInState, error: null });
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
  render({ adminOn, onOpen }, { states, text, rows, error, note }) {
    const needle = text.trim().toLowerCase();
    const shown = rows.filter((m) => !needle || `${m.errorClass || ''} ${m.lastError || ''} ${m.type || ''}/${m.subtype || ''}`.toLowerCase().includes(needle));
    return h(
      'section',
      { 'data-testid': 'problems' },
      h('h2', null, 'Parked and dead messages'),
      h(
        'div',
        { class: 'filters' },
        Object.keys(states).map((s) =>
          h('label', null, h('input', { type: 'checkbox', checked: states[s], onChange: (e) => this.setState({ states: { ...states, [s]: e.target.checked } }, () => this.load()) }), ` ${s}`),
        ),
        h('input', { type: 'search', placeholder: 'filter by reason, class or type', value: text, 'data-testid': 'problem-filter', onInput: (e) => this.setState({ text: e.target.value }) }),
      ),
      note ? h('p', { class: 'note', 'data-testid': 'action-note' }, note) : null,
      error ? h('p', { class: 'error' }, error) : null,
      table(
        'grid',
        ['id', 'state', 'class', 'type', 'attempts', 'reason', ''],
        shown.map((m) =>
          h(
            'tr',
            { 'data-testid': `problem-${m.id}` },
            h('td', null, h('a', { href: `#message/${m.id}`, onClick: () => onOpen(m.id) }, m.id)),
            cell(m.state),
            cell(m.errorClass),
            cell(`${m.type || '?'}/${m.subtype || '?'}`),
            cell(m.attempts),
            h('td', { class: 'reason' }, m.lastError || '–'),
            h('td', null, adminOn && m.errorClass !== 'MALFORMED' ? h('button', { 'data-testid': `replay-${m.id}`, onClick: () => this.replay(m) }, 'Replay') : null),
          ),
        ),
      ),
      shown.length === 0 ? h('p', null, 'None.') : null,
    );
  }
}

const MESSAGE = `query($id: ID!) { message(id: $id) { id state errorClass lastError attempts sender type subtype seqn dttm identityKey
  receivedAt ingestedAt rawXml
  decisions { position kind handler recordedAt flids payload changes { type flid data } }
  deliveries { eventId target state attempts sentAt lastError } } }`;

export class MessageView extends Component {
  constructor(props) {
    super(props);
    this.state = { id: props.id || '', msg: undefined, error: null };
  }
  componentDidMount() {
    if (this.state.id) this.load(this.state.id);
  }
  componentDidUpdate(prev) {
    if (this.props.id && this.props.id !== prev.id) this.setState({ id: this.props.id }, () => this.load(this.props.id));
  }
  async load(id) {
    try {
      const d = await gql(MESSAGE, { id });
      this.setState({ msg: d.message, error: null });
    } catch (err) {
      this.setState({ error: err.message, msg: undefined });
    }
  }
  render(_p, { id, msg, error }) {
    return h(
      'section',
      { 'data-testid': 'message' },
      h('h2', null, 'Message audit trail'),
      h('form', { class: 'filters', onSubmit: (e) => (e.preventDefault(), this.load(id)) }, h('input', { placeholder: 'CMINMSGS id', value: id, 'data-testid': 'message-id', onInput: (e) => this.setState({ id: e.target.value }) }), h('button', null, 'Show')),
      error ? h('p', { class: 'error' }, error) : null,
      msg === null ? h('p', null, 'No such message.') : null,
      msg
        ? h(
            'div',
            null,
            h('p', { 'data-testid': 'message-state' }, `${msg.id}: ${msg.sender || '?'} ${msg.type || '?'}/${msg.subtype || '?'} seqn ${msg.seqn || '?'} — ${msg.state}${msg.errorClass ? ` (${msg.errorClass})` : ''}, ${msg.attempts} attempts`),
            msg.lastError ? h('p', { class: 'error' }, msg.lastError) : null,
            h('h3', null, 'Decisions'),
            table('grid', ['position', 'kind', 'recorded', 'flights', 'changes / payload'], msg.decisions.map((d) =>
              h('tr', null, cell(d.position), cell(d.kind), cell(d.recordedAt), cell(d.flids.join(', ')),
                h('td', { class: 'reason' }, d.changes.length ? d.changes.map((c) => `${c.type}${c.flid ? ` ${c.flid}` : ''}${c.data ? ` ${c.data}` : ''}`).join('\n') : d.payload)))),
            h('h3', null, 'Deliveries'),
            table('grid', ['event', 'target', 'state', 'attempts', 'sent', 'error'], msg.deliveries.map((d) => h('tr', null, cell(d.eventId), cell(d.target), cell(d.state), cell(d.attempts), cell(d.sentAt), cell(d.lastError)))),
            h('h3', null, 'Raw XML'),
            h('pre', { class: 'xml', 'data-testid': 'raw-xml' }, msg.rawXml || '(withheld)'),
          )
        : null,
    );
  }
}

const BOARD = `query($day: Date!) { flights(operationDay: $day, first: 500) { totalCount edges { node {
  flid airline flightNo direction scheduledTime estimatedTime actualTime status currentStand lastPosition } } } }`;
const BOARD_LIVE = 'subscription($day: Date) { flightChanged(operationDay: $day) { flid position type } }';

export class BoardView extends Component {
  constructor(props) {
    super(props);
    this.state = { day: props.day, rows: [], total: 0, live: 'connecting', lastChange: null, error: null };
  }
  componentDidMount() {
    this.open();
  }
  componentWillUnmount() {
    if (this.close) this.close();
  }
  open() {
    if (this.close) this.close();
    this.load();
    this.close = subscribe(BOARD_LIVE, { day: this.state.day }, (d) => {
      this.setState({ lastChange: d.flightChanged });
      this.load();
    }, (live) => this.setState({ live }));
  }
  async load() {
    try {
      const d = await gql(BOARD, { day: this.state.day });
      this.setState({ rows: d.flights.edges.map((e) => e.node), total: d.flights.totalCount, error: null });
    } catch (err) {
      this.setState({ error: err.message });
    }
  }
  render({ onFlight }, { day, rows, total, live, lastChange, error }) {
    return h(
      'section',
      { 'data-testid': 'board' },
      h('h2', null, 'Flight board'),
      h('form', { class: 'filters', onSubmit: (e) => (e.preventDefault(), this.open()) },
        h('input', { type: 'date', value: day, 'data-testid': 'board-day', onInput: (e) => this.setState({ day: e.target.value }) }), h('button', null, 'Show'),
        h('span', { class: `live ${live}`, 'data-testid': 'board-live' }, live),
        lastChange ? h('span', { class: 'note' }, ` last change: flight ${lastChange.flid} at position ${lastChange.position}`) : null),
      error ? h('p', { class: 'error' }, error) : null,
      h('p', null, `${total} flights`),
      table('grid', ['flid', 'flight', 'dir', 'scheduled', 'estimated', 'actual', 'status', 'stand', 'position'], rows.map((f) =>
        h('tr', { 'data-testid': `flight-${f.flid}` },
          h('td', null, h('a', { href: `#flight/${f.flid}`, onClick: () => onFlight(f.flid) }, f.flid)),
          cell(`${f.airline || ''}${f.flightNo ? ` ${f.flightNo}` : ''}`), cell(f.direction && f.direction[0]), cell(f.scheduledTime), cell(f.estimatedTime), cell(f.actualTime), cell(f.status), cell(f.currentStand), cell(f.lastPosition)))),
    );
  }
}

const FLIGHT = `query($flid: ID!, $asOf: DateTime) { flight(flid: $flid, asOf: $asOf) { flid airline flightNo direction operationDay scheduledTime
  estimatedTime actualTime status currentStand terminal registration aircraftType deleted stateVersion lastPosition lastMsgId }
  flightHistory(flid: $flid, first: 200) { edges { node { position msgId kind recordedAt changes { type data } } } } }`;

export class FlightView extends Component {
  constructor(props) {
    super(props);
    this.state = { flid: props.flid || '', asOf: '', data: null, error: null };
  }
  componentDidMount() {
    if (this.state.flid) this.load();
  }
  componentDidUpdate(prev) {
    if (this.props.flid && this.props.flid !== prev.flid) this.setState({ flid: this.props.flid }, () => this.load());
  }
  async load() {
    try {
      const asOf = this.state.asOf.trim() || null;
      this.setState({ data: await gql(FLIGHT, { flid: this.state.flid, asOf }), error: null });
    } catch (err) {
      this.setState({ error: err.message, data: null });
    }
  }
  render(_p, { flid, asOf, data, error }) {
    const f = data && data.flight;
    return h(
      'section',
      { 'data-testid': 'flight' },
      h('h2', null, 'Flight history'),
      h('form', { class: 'filters', onSubmit: (e) => (e.preventDefault(), this.load()) },
        h('input', { placeholder: 'flid', value: flid, 'data-testid': 'flight-id', onInput: (e) => this.setState({ flid: e.target.value }) }),
        h('input', { placeholder: 'as of (ISO-8601, e.g. 2025-03-14T10:00:00+08:00; empty = now)', class: 'wide', value: asOf, 'data-testid': 'flight-asof', onInput: (e) => this.setState({ asOf: e.target.value }) }),
        h('button', null, 'Show')),
      error ? h('p', { class: 'error' }, error) : null,
      data && !f ? h('p', null, 'No such flight (at that instant).') : null,
      f ? h('dl', { class: 'stats', 'data-testid': 'flight-state' }, Object.entries(f).map(([k, v]) => stat(k, v))) : null,
      data ? h('h3', null, 'Decisions that touched it') : null,
      data ? table('grid', ['position', 'message', 'kind', 'recorded', 'changes'], data.flightHistory.edges.map(({ node: d }) =>
        h('tr', null, cell(d.position), cell(d.msgId), cell(d.kind), cell(d.recordedAt), h('td', { class: 'reason' }, d.changes.map((c) => `${c.type} ${c.data || ''}`).join('\n'))))) : null,
    );
  }
}
