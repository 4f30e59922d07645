// One flight: a grouped header (identity, times with the A-CDM milestones in order, resources,
// status), its history as a timeline of changes (what, from, to, which message, when), raw JSON
// behind a toggle, and the flight as it was after any of its own decisions (docs/operations.md, "Console").
import { Component, h } from '/assets/vendor/preact.mjs';
import { gql } from './api.js';
import { localTime, stamp, statusBadge } from './format.js';
import { setHashQuery } from './route.js';

const ACDM = [
  ['inboundEstimate', 'ELDT (inbound estimate)'], ['approach', 'approach'], ['estimatedOffBlock', 'EOBT'], ['targetOffBlock', 'TOBT'],
  ['calculatedOffBlock', 'COBT'], ['startUpRequest', 'start-up request'], ['startUp', 'start-up'], ['calculatedTakeOff', 'CTOT'],
  ['prevEstimatedDeparture', 'previous station ETD'], ['prevActualDeparture', 'previous station ATD'],
  ['nextEstimatedArrival', 'next station ETA'], ['nextActualArrival', 'next station ATA'],
];
const RES = '{ seq code class kind scheduledStart scheduledEnd actualStart actualEnd }';
const FLIGHT = `query($flid: ID!, $asOf: DateTime) { flight(flid: $flid, asOf: $asOf) {
  flid ffid operationDay airline flightNo direction scheduledTime estimatedTime actualTime serviceType flightNature aircraftType registration
  terminal currentStand masterFlid linkedFlight { airline flightNo flid } boardingOpen lastCall boardingClosed cancelTime cancelled status
  publicStatus publicRemark diversionAirport diversionDirection returnType deleted deletedReason stateVersion lastPosition lastMsgId updatedAt
  maxPassengers remark runway abnormal { reason remark } handlingAgents { passenger field maintenance }
  milestones { ${ACDM.map(([k]) => k).join(' ')} }
  stands ${RES} gates ${RES} checkInCounters ${RES} baggageBelts ${RES} chutes ${RES}
  bridges { seq bridge operation time } chocks { seq stand onOff time } delays { code start durationMinutes } }
  flightHistory(flid: $flid, first: 200) { edges { node { position msgId kind recordedAt changes { type data } } } pageInfo { hasNextPage } } }`;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A value of a change, readable: instants as local times, lists as their codes. */
function show(v, day) {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'string' && ISO.test(v)) return v.slice(0, 10) === day ? v.slice(11, 16) : `${v.slice(0, 10)} ${v.slice(11, 16)}`;
  if (Array.isArray(v)) return v.length === 0 ? 'none' : v.map((x) => (x && typeof x === 'object' ? itemText(x, day) : String(x))).join(', ');
  if (typeof v === 'object') return Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => `${k} ${show(x, day)}`).join(', ') || '—';
  return String(v);
}

function itemText(x, day) {
  const name = x.code ?? x.bridge ?? x.airport ?? x.stand ?? (x.seq !== undefined ? `#${x.seq}` : '');
  const extra = x.durationMinutes !== undefined && x.durationMinutes !== null ? ` ${x.durationMinutes} min` : x.onOff ? ` ${x.onOff}` : '';
  const at = x.actualStart || x.time || x.start;
  return `${name}${extra}${at ? ` @${show(at, day)}` : ''}`;
}

/** `GatesReplaced` → `gates`, the key FlightCreated's lists use for it. */
const listKey = (type) => {
  const base = type.replace(/Replaced$/, '');
  const key = base.charAt(0).toLowerCase() + base.slice(1);
  return key === 'counters' ? 'counters' : key;
};

/**
 * The history as lines: one per field or list a decision changed, with the value before it (from
 * the earlier decisions of the same history) and after it. Changes without fields read as their type.
 */
export function timeline(decisions, day) {
  const known = {};
  const lines = [];
  for (const d of decisions) {
    for (const c of d.changes) {
      let data = null;
      try {
        data = c.data ? JSON.parse(c.data) : null;
      } catch {
        data = null;
      }
      const line = (what, from, to) => lines.push({ d, change: c, what, from, to });
      if (data?.fields && typeof data.fields === 'object') {
        if (c.type === 'FlightCreated') line('flight created', null, `${Object.keys(data.fields).filter((k) => data.fields[k] !== null).length} fields set`);
        for (const [k, v] of Object.entries(data.fields)) {
          if (c.type !== 'FlightCreated') line(k, show(known[k], day), show(v, day));
          known[k] = v;
        }
        if (data.lists) for (const [k, v] of Object.entries(data.lists)) known[k] = v;
      } else if (data && Array.isArray(data.items)) {
        const k = listKey(c.type);
        line(k, show(known[k], day), show(data.items, day));
        known[k] = data.items;
      } else {
        line(c.type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase(), null, data?.reason ? String(data.reason) : null);
      }
    }
    if (d.changes.length === 0) lines.push({ d, change: null, what: d.kind, from: null, to: null });
  }
  return lines;
}

const field = (label, value) => (value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0) ? null : h('div', { class: 'field' }, h('dt', null, label), h('dd', null, value)));
const group = (title, fields) => {
  const present = fields.filter(Boolean);
  return present.length ? h('div', { class: 'group' }, h('h3', null, title), h('dl', null, present)) : null;
};

function Header({ f }) {
  const t = (iso) => localTime(iso, f.operationDay);
  const res = (list) => (list.length ? list.map((r) => `${r.code}${r.actualStart ? ` (from ${r.actualStart.slice(11, 16)})` : r.scheduledStart ? ` (${r.scheduledStart.slice(11, 16)}–${(r.scheduledEnd || '').slice(11, 16)})` : ''}`).join(', ') : null);
  return h('div', { class: 'header-groups', 'data-testid': 'flight-state' },
    group('Identity', [
      field('flight', `${f.airline || ''} ${f.flightNo || ''}`.trim()), field('flid', f.flid), field('ffid', f.ffid),
      field('direction', f.direction?.toLowerCase()), field('operation day', f.operationDay), field('service type', f.serviceType),
      field('nature', f.flightNature), field('aircraft', f.aircraftType), field('registration', f.registration),
      field('linked flight', f.linkedFlight?.flid ? h('a', { href: `#/flight/${f.linkedFlight.flid}` }, `${f.linkedFlight.flightNo || f.linkedFlight.flid}`) : null),
      field('codeshare master', f.masterFlid ? h('a', { href: `#/flight/${f.masterFlid}` }, f.masterFlid) : null), field('max passengers', f.maxPassengers),
      field('handling', f.handlingAgents ? Object.values(f.handlingAgents).filter(Boolean).join(' / ') : null),
    ]),
    group('Times', [
      field('scheduled', t(f.scheduledTime)), field('estimated', t(f.estimatedTime)), field('actual', t(f.actualTime)),
      field('boarding open', t(f.boardingOpen)), field('last call', t(f.lastCall)), field('boarding closed', t(f.boardingClosed)),
      ...ACDM.map(([k, label]) => field(label, t(f.milestones[k]))), field('cancel time', t(f.cancelTime)),
    ]),
    group('Resources', [
      field('terminal', f.terminal), field('stand', f.currentStand), field('stands', res(f.stands)), field('gates', res(f.gates)),
      field('check-in counters', res(f.checkInCounters)), field('belts', res(f.baggageBelts)), field('chutes', res(f.chutes)), field('runway', f.runway),
      field('bridges', f.bridges.map((b) => `${b.bridge} ${b.operation || ''}${b.time ? ` ${b.time.slice(11, 16)}` : ''}`).join(', ')),
      field('chocks', f.chocks.map((c) => `${c.onOff || ''} ${c.stand || ''}${c.time ? ` ${c.time.slice(11, 16)}` : ''}`).join(', ')),
    ]),
    group('Status', [
      field('status', statusBadge(f)), field('status code', f.status), field('public status', f.publicStatus), field('public remark', f.publicRemark),
      field('delays', f.delays.map((d) => `${d.code}${d.durationMinutes !== null ? ` ${d.durationMinutes} min` : ''}`).join(', ')),
      field('diverted to', f.diversionAirport ? `${f.diversionAirport}${f.diversionDirection ? ` (${f.diversionDirection})` : ''}` : null),
      field('returned', f.returnType === 'G' ? 'to the gate' : f.returnType === 'A' ? 'airborne return' : null),
      field('deleted', f.deleted ? f.deletedReason || 'yes' : null), field('abnormal', f.abnormal ? `${f.abnormal.reason || ''} ${f.abnormal.remark || ''}` : null),
      field('remark', f.remark), field('last message', f.lastMsgId ? h('a', { href: `#/message/${f.lastMsgId}` }, f.lastMsgId) : null),
      field('version', `${f.stateVersion} (log position ${f.lastPosition})`),
    ]),
  );
}

export class FlightView extends Component {
  constructor(props) {
    super(props);
    this.state = { typed: props.flid || '', data: null, error: null, raw: false, history: null };
  }
  componentDidMount() {
    if (this.props.flid) this.load();
  }
  componentDidUpdate(prev) {
    if (this.props.flid !== prev.flid || this.props.asOf !== prev.asOf) {
      if (this.props.flid !== prev.flid) this.setState({ typed: this.props.flid, history: null });
      this.load();
    }
  }
  async load() {
    if (!this.props.flid) return;
    try {
      const data = await gql(FLIGHT, { flid: this.props.flid, asOf: this.props.asOf || null });
      // The decision list always covers the whole history: the as-of choices stay offered.
      this.setState({ data, error: null, history: this.props.asOf && this.state.history ? this.state.history : data.flightHistory.edges.map((e) => e.node) });
    } catch (err) {
      this.setState({ error: err.message, data: null });
    }
  }
  render({ asOf, onFlight }, { typed, data, error, raw, history }) {
    const f = data?.flight;
    const decisions = history || [];
    const lines = timeline(decisions, f ? f.operationDay : '');
    return h(
      'section',
      { 'data-testid': 'flight' },
      h('h2', null, f ? `Flight ${f.airline || ''} ${f.flightNo || ''} (${f.flid})` : 'Flight'),
      h('form', { class: 'filters', onSubmit: (e) => {
        e.preventDefault();
        if (typed.trim()) onFlight(typed.trim());
      } },
        h('input', { 'aria-label': 'flid', placeholder: 'flid', value: typed, 'data-testid': 'flight-id', onInput: (e) => this.setState({ typed: e.target.value }) }),
        h('button', null, 'Show')),
      h('div', { class: 'filters asof' },
        h('label', { for: 'asof' }, 'As of '),
        h('select', { id: 'asof', 'data-testid': 'flight-asof', value: asOf || '', onChange: (e) => setHashQuery({ asOf: e.target.value }) },
          h('option', { value: '' }, 'now (the read model)'),
          decisions.map((d) => h('option', { value: d.recordedAt }, `after decision ${d.position} (message ${d.msgId || '–'}, ${d.kind}) recorded ${stamp(d.recordedAt)}`))),
        h('span', { class: 'note' }, 'As of an instant: the flight folded from the log up to the decisions msgx had recorded by then (the time msgx recorded a decision, not the message\'s own time).')),
      error ? h('p', { class: 'error' }, error) : null,
      data && !f ? h('p', null, asOf ? 'The flight did not exist yet at that instant.' : 'No such flight.') : null,
      f ? h(Header, { f }) : null,
      f && asOf ? h('p', { class: 'note', 'data-testid': 'asof-note' }, `Shown as it was at ${stamp(asOf)}.`) : null,
      data ? h('h3', null, 'History') : null,
      data ? h('label', { class: 'toggle' }, h('input', { type: 'checkbox', checked: raw, 'data-testid': 'raw-toggle', onChange: (e) => this.setState({ raw: e.target.checked }) }), ' show raw JSON') : null,
      data ? h('ol', { class: 'timeline', 'data-testid': 'timeline' }, lines.map((l) => h('li', { 'data-testid': `change-${l.d.position}` },
        h('time', { datetime: l.d.recordedAt, title: l.d.recordedAt }, stamp(l.d.recordedAt)), ' ',
        h('strong', null, l.what),
        l.from !== null || l.to !== null ? h('span', null, l.from !== null ? ` ${l.from} → ` : ': ', h('b', null, l.to ?? '—')) : null,
        h('span', { class: 'by' }, ' by ', l.d.msgId ? h('a', { href: `#/message/${l.d.msgId}` }, `message ${l.d.msgId}`) : `decision ${l.d.position}`, ` (${l.d.kind}, position ${l.d.position})`),
        raw && l.change ? h('pre', { class: 'json' }, l.change.data) : null))) : null,
      data?.flightHistory.pageInfo.hasNextPage ? h('p', { class: 'note' }, 'The first 200 decisions are shown.') : null,
    );
  }
}
