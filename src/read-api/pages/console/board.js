// The flight board: one operation day, every column a duty manager asks for (chosen columns kept in
// this browser), search, filters and sort kept in the URL, and live updates that mark the changed
// row for a moment (docs/operations.md, "Console").
import { Component, h } from '/assets/vendor/preact.mjs';
import { gql, subscribe } from './api.js';
import { codes, flightStatus, localTime, STATUS_KEYS, statusBadge } from './format.js';
import { hashQuery, setHashQuery } from './route.js';

const MILESTONES = [
  ['estimatedOffBlock', 'EOBT'], ['targetOffBlock', 'TOBT'], ['calculatedOffBlock', 'COBT'], ['calculatedTakeOff', 'CTOT'],
  ['inboundEstimate', 'ELDT'], ['approach', 'APPT'], ['startUpRequest', 'ASRT'], ['startUp', 'ASAT'],
];

const BOARD = `query($day: Date!, $after: String) { flights(operationDay: $day, includeDeleted: true, first: 500, after: $after) {
  totalCount pageInfo { hasNextPage endCursor } edges { node {
  flid airline flightNo direction operationDay scheduledTime estimatedTime actualTime status publicStatus cancelled deleted
  diversionAirport returnType terminal currentStand boardingOpen boardingClosed
  gates { code } baggageBelts { code } checkInCounters { code } delays { code durationMinutes } stands { actualStart }
  milestones { ${MILESTONES.map(([k]) => k).join(' ')} } } } } }`;
const BOARD_LIVE = 'subscription($day: Date) { flightChanged(operationDay: $day) { flid position type } }';
/** A board reads at most this many pages of 500 (a 4,000-flight day). */
const MAX_PAGES = 8;
/** How long a changed row stays marked. */
const MARK_MS = 4000;
const COLUMNS_KEY = 'msgx.boardColumns';

const text = (v) => (v === null || v === undefined ? '' : String(v));
const flightName = (f) => text(f.flightNo || f.airline);

/** Every column: label, sort value, cell. `optional` columns can be hidden. */
const COLUMNS = [
  { key: 'flight', label: 'Flight', value: flightName, cell: (f, go) => h('a', { href: `#/flight/${f.flid}`, onClick: () => go(f.flid) }, flightName(f) || f.flid) },
  { key: 'dir', label: 'Dir', value: (f) => text(f.direction), cell: (f) => h('abbr', { title: text(f.direction).toLowerCase() }, f.direction === 'ARRIVAL' ? 'arr' : f.direction === 'DEPARTURE' ? 'dep' : '') },
  { key: 'sched', label: 'Sched', value: (f) => text(f.scheduledTime), cell: (f) => localTime(f.scheduledTime, f.operationDay) },
  { key: 'est', label: 'Est', value: (f) => text(f.estimatedTime), cell: (f) => localTime(f.estimatedTime, f.operationDay) },
  { key: 'act', label: 'Actual', value: (f) => text(f.actualTime), cell: (f) => localTime(f.actualTime, f.operationDay) },
  { key: 'status', label: 'Status', value: (f) => STATUS_KEYS.indexOf(flightStatus(f).key), cell: statusBadge },
  { key: 'terminal', label: 'Term', optional: true, value: (f) => text(f.terminal), cell: (f) => text(f.terminal) },
  { key: 'stand', label: 'Stand', optional: true, value: (f) => text(f.currentStand), cell: (f) => text(f.currentStand) },
  { key: 'gate', label: 'Gate', optional: true, value: (f) => codes(f.gates), cell: (f) => codes(f.gates) },
  { key: 'counters', label: 'Counters', optional: true, value: (f) => codes(f.checkInCounters), cell: (f) => codes(f.checkInCounters) },
  { key: 'belt', label: 'Belt', optional: true, value: (f) => codes(f.baggageBelts), cell: (f) => codes(f.baggageBelts) },
  { key: 'delays', label: 'Delay codes', optional: true, value: (f) => f.delays.map((d) => d.code).join(' '),
    cell: (f) => f.delays.map((d) => `${d.code}${d.durationMinutes !== null ? ` (${d.durationMinutes}′)` : ''}`).join(' ') },
  ...MILESTONES.map(([k, label]) => ({ key: k, label, optional: true, milestone: true, value: (f) => text(f.milestones[k]), cell: (f) => localTime(f.milestones[k], f.operationDay) })),
  { key: 'flid', label: 'flid', optional: true, value: (f) => Number(f.flid), cell: (f) => h('a', { href: `#/flight/${f.flid}` }, f.flid) },
];

function chosenColumns() {
  try {
    const saved = JSON.parse(localStorage.getItem(COLUMNS_KEY) || 'null');
    return Array.isArray(saved) ? new Set(saved) : null;
  } catch {
    return null;
  }
}

/** Does the flight match the search text (flight number, airline, flid or stand)? */
const matches = (f, needle) => !needle || [f.flightNo, f.airline, f.flid, f.currentStand].some((v) => v && String(v).toLowerCase().includes(needle));

export function filterAndSort(rows, q) {
  const needle = (q.q || '').trim().toLowerCase();
  const col = COLUMNS.find((c) => c.key === q.sort) || COLUMNS[2];
  const sign = q.desc === '1' ? -1 : 1;
  return rows
    .filter((f) => (q.deleted === '1' || !f.deleted) && matches(f, needle) && (!q.dir || f.direction === q.dir)
      && (!q.status || flightStatus(f).key === q.status) && (!q.term || f.terminal === q.term))
    .map((f) => [col.value(f), f])
    .sort((a, b) => (a[0] < b[0] ? -sign : a[0] > b[0] ? sign : Number(a[1].flid) - Number(b[1].flid)))
    .map(([, f]) => f);
}

export class BoardView extends Component {
  constructor(props) {
    super(props);
    this.state = { rows: [], total: 0, live: 'connecting', changed: {}, error: null, loaded: false, columns: chosenColumns() };
    this.marks = new Map();
  }
  componentDidMount() {
    this.open();
  }
  componentDidUpdate(prev) {
    if (prev.day !== this.props.day) this.open();
  }
  componentWillUnmount() {
    if (this.close) this.close();
    for (const t of this.marks.values()) clearTimeout(t);
  }
  open() {
    if (this.close) this.close();
    this.load();
    this.close = subscribe(BOARD_LIVE, { day: this.props.day }, (d) => {
      this.mark(d.flightChanged.flid);
      this.load();
    }, (live) => this.setState({ live }));
  }
  mark(flid) {
    clearTimeout(this.marks.get(flid));
    this.setState({ changed: { ...this.state.changed, [flid]: true } });
    this.marks.set(flid, setTimeout(() => {
      const { [flid]: _gone, ...rest } = this.state.changed;
      this.marks.delete(flid);
      this.setState({ changed: rest });
    }, MARK_MS));
  }
  async load() {
    const day = this.props.day;
    try {
      const rows = [];
      let after = null;
      let total = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        const d = await gql(BOARD, { day, after });
        total = d.flights.totalCount;
        for (const e of d.flights.edges) rows.push(e.node);
        if (!d.flights.pageInfo.hasNextPage) break;
        after = d.flights.pageInfo.endCursor;
      }
      if (day === this.props.day) this.setState({ rows, total, error: null, loaded: true });
    } catch (err) {
      this.setState({ error: err.message });
    }
  }
  setColumns(columns) {
    localStorage.setItem(COLUMNS_KEY, JSON.stringify([...columns]));
    this.setState({ columns });
  }
  render({ day, onFlight, onDay }, { rows, total, live, changed, error, loaded, columns }) {
    const q = hashQuery();
    // A-CDM columns: only the milestones some flight of the day has (unless chosen explicitly).
    const setMilestones = new Set(MILESTONES.map(([k]) => k).filter((k) => rows.some((f) => f.milestones[k])));
    const shown = COLUMNS.filter((c) => !c.optional || (columns ? columns.has(c.key) : !c.milestone || setMilestones.has(c.key)));
    const list = filterAndSort(rows, q);
    const terminals = [...new Set(rows.map((f) => f.terminal).filter(Boolean))].sort();
    const deleted = rows.filter((f) => f.deleted).length;
    const select = (key, label, options) => h('label', null, `${label} `,
      h('select', { value: q[key] || '', 'data-testid': `board-${key}`, onChange: (e) => setHashQuery({ [key]: e.target.value }) },
        h('option', { value: '' }, 'all'), options.map(([v, t]) => h('option', { value: v }, t))));
    const sortBy = (key) => {
      const now = hashQuery(); // the URL, not this render's copy: two quick clicks toggle twice
      setHashQuery({ sort: key, desc: now.sort === key && now.desc !== '1' ? '1' : '' });
    };
    return h(
      'section',
      { 'data-testid': 'board' },
      h('h2', null, `Flight board ${day}`),
      h('div', { class: 'filters' },
        h('label', null, 'Day ', h('input', { type: 'date', value: day, 'data-testid': 'board-day', onChange: (e) => e.target.value && onDay(e.target.value) })),
        h('input', { type: 'search', 'aria-label': 'search flights', placeholder: 'flight, airline, flid or stand', value: q.q || '', 'data-testid': 'board-search',
          onInput: (e) => setHashQuery({ q: e.target.value }) }),
        select('dir', 'Direction', [['ARRIVAL', 'arrivals'], ['DEPARTURE', 'departures']]),
        select('status', 'Status', STATUS_KEYS.map((s) => [s, s])),
        select('term', 'Terminal', terminals.map((t) => [t, t])),
        h('label', null, h('input', { type: 'checkbox', checked: q.deleted === '1', 'data-testid': 'board-deleted', onChange: (e) => setHashQuery({ deleted: e.target.checked ? '1' : '' }) }), ` show deleted (${deleted})`),
        h('span', { class: `live ${live}`, 'data-testid': 'board-live' }, live)),
      h('details', { class: 'columns' }, h('summary', null, 'Columns'),
        COLUMNS.filter((c) => c.optional).map((c) => h('label', null,
          h('input', { type: 'checkbox', checked: shown.includes(c), 'data-testid': `column-${c.key}`,
            onChange: (e) => { const next = new Set(shown.filter((x) => x.optional).map((x) => x.key)); if (e.target.checked) next.add(c.key); else next.delete(c.key); this.setColumns(next); } }),
          ` ${c.label}`))),
      error ? h('p', { class: 'error' }, error) : null,
      h('p', { 'data-testid': 'board-count' }, loaded ? `${list.length} of ${total} flights shown` : 'Loading…'),
      h('div', { class: 'scroll' }, h('table', { class: 'grid board' },
        h('thead', null, h('tr', null, shown.map((c) => h('th', { 'aria-sort': q.sort === c.key || (!q.sort && c.key === 'sched') ? (q.desc === '1' ? 'descending' : 'ascending') : 'none' },
          h('button', { class: 'sort', 'data-testid': `sort-${c.key}`, onClick: () => sortBy(c.key) }, c.label))))),
        h('tbody', null, list.map((f) => h('tr', { key: f.flid, 'data-testid': `flight-${f.flid}`, class: `${changed[f.flid] ? 'changed' : ''} ${f.deleted ? 'deleted' : ''}` },
          shown.map((c) => h('td', null, c.cell(f, onFlight)))))))),
      loaded && list.length === 0 ? h('p', null, rows.length ? 'No flight matches.' : 'No flights on this day.') : null,
    );
  }
}
