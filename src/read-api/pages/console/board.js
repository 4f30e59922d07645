// The flight board: one operation day, every column a duty manager asks for (chosen columns kept in
// this browser), search, filters and sort kept in the URL, and live updates that mark the changed
// row for a moment. A board of more than 300 rows renders only the rows in view and a margin around
// them, so that a day of thousands of flights shows in well under a second (docs/operations.md, "Console").
import { Component, createRef, h } from '/assets/vendor/preact.mjs';
import { gql, subscribe } from './api.js';
import { codes, dayOffset, flightStatus, hhmm, localTime, STATUS_KEYS, statusBadge } from './format.js';
import { hashQuery, route, setHashQuery } from './route.js';

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
/** A board with more rows than this renders the rows in view and a margin; the others are blank space of their height. */
const WINDOW_FROM = 300;
/** Rows rendered above and below the visible ones (Tab and the arrow keys never reach the edge first). */
const MARGIN_ROWS = 30;
/** The window moves in steps of this many rows (fewer renders while scrolling). */
const WINDOW_STEP = 10;
/** A row's height until one is measured (one line of table.board). */
const ROW_PX = 30;

const text = (v) => (v === null || v === undefined ? '' : String(v));
const flightName = (f) => text(f.flightNo || f.airline);
/** A time cell's text: `10:40`, or `00:10 +1d` on another day. */
const timeText = (iso, day) => {
  const off = dayOffset(iso, day);
  return `${hhmm(iso)}${off ? ` +${Math.abs(off)}d` : ''}`;
};
const delayText = (f) => f.delays.map((d) => `${d.code}${d.durationMinutes !== null ? ` (${d.durationMinutes}′)` : ''}`).join(' ');

/**
 * Every column: label, sort value, cell, and the cell's text (its width: the board's columns are
 * as wide as the day's widest cell, whichever rows are rendered). `optional` columns can be hidden.
 * Each reads a row's view model: the flight `f` and its `status`, computed once per load.
 */
const COLUMNS = [
  { key: 'flight', label: 'Flight', value: (v) => flightName(v.f), text: (v) => flightName(v.f) || v.f.flid,
    cell: (v, go) => h('a', { href: `#/flight/${v.f.flid}`, onClick: () => go(v.f.flid) }, flightName(v.f) || v.f.flid) },
  { key: 'dir', label: 'Dir', value: (v) => text(v.f.direction), text: () => 'dep',
    cell: ({ f }) => h('abbr', { title: text(f.direction).toLowerCase() }, f.direction === 'ARRIVAL' ? 'arr' : f.direction === 'DEPARTURE' ? 'dep' : '') },
  { key: 'sched', label: 'Sched', time: (f) => f.scheduledTime },
  { key: 'est', label: 'Est', time: (f) => f.estimatedTime },
  { key: 'act', label: 'Actual', time: (f) => f.actualTime },
  { key: 'status', label: 'Status', value: (v) => STATUS_KEYS.indexOf(v.status.key), cell: (v) => statusBadge(v.f, v.status),
    // the badge's padding and border are about two characters
    text: (v) => `${v.status.text}${v.status.late !== null ? ` +${v.status.late} min` : ''}  ` },
  { key: 'terminal', label: 'Term', optional: true, plain: (f) => text(f.terminal) },
  { key: 'stand', label: 'Stand', optional: true, plain: (f) => text(f.currentStand) },
  { key: 'gate', label: 'Gate', optional: true, plain: (f) => codes(f.gates) },
  { key: 'counters', label: 'Counters', optional: true, plain: (f) => codes(f.checkInCounters) },
  { key: 'belt', label: 'Belt', optional: true, plain: (f) => codes(f.baggageBelts) },
  { key: 'delays', label: 'Delay codes', optional: true, value: (v) => v.f.delays.map((d) => d.code).join(' '), text: (v) => delayText(v.f), cell: (v) => delayText(v.f) },
  ...MILESTONES.map(([k, label]) => ({ key: k, label, optional: true, milestone: true, time: (f) => f.milestones[k] })),
  { key: 'flid', label: 'flid', optional: true, value: (v) => Number(v.f.flid), text: (v) => v.f.flid, cell: (v) => h('a', { href: `#/flight/${v.f.flid}` }, v.f.flid) },
].map(completeColumn);

/** A time column (`time`) or a plain-text one (`plain`) gets its value, text and cell from that. */
function completeColumn(c) {
  if (c.time) {
    const { time } = c;
    return { ...c, value: (v) => text(time(v.f)), text: (v) => (time(v.f) ? timeText(time(v.f), v.f.operationDay) : ''), cell: (v) => localTime(time(v.f), v.f.operationDay) };
  }
  if (c.plain) {
    const { plain } = c;
    return { ...c, value: (v) => plain(v.f), text: (v) => plain(v.f), cell: (v) => plain(v.f) };
  }
  return c;
}

/** What the board shows of one flight: the flight and its status word (computed once per load, not per render). */
const viewModel = (f) => ({ f, status: flightStatus(f) });

/** `fn` remembering its last result: called again with the same arguments (===), it returns that. */
function lastResult(fn) {
  let args = null;
  let out;
  return (...a) => {
    if (!args || a.length !== args.length || a.some((x, i) => x !== args[i])) {
      out = fn(...a);
      args = a;
    }
    return out;
  };
}

/** The day's facts every render needs: A-CDM milestones set, terminals, deleted count, column widths (ch). */
function dayFacts(models) {
  const widths = {};
  for (const c of COLUMNS) {
    let n = c.label.length;
    for (const v of models) n = Math.max(n, c.text(v).length);
    widths[c.key] = n + 1;
  }
  return {
    setMilestones: new Set(MILESTONES.map(([k]) => k).filter((k) => models.some((v) => v.f.milestones[k]))),
    terminals: [...new Set(models.map((v) => v.f.terminal).filter(Boolean))].sort(),
    deleted: models.filter((v) => v.f.deleted).length,
    widths,
  };
}

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

/** The view models the URL's query (`q`, `dir`, `status`, `term`, `deleted`, `sort`, `desc`) selects, in its order. */
export function filterAndSort(models, q) {
  const needle = (q.q || '').trim().toLowerCase();
  const col = COLUMNS.find((c) => c.key === q.sort) || COLUMNS[2];
  const sign = q.desc === '1' ? -1 : 1;
  return models
    .filter(({ f, status }) => (q.deleted === '1' || !f.deleted) && matches(f, needle) && (!q.dir || f.direction === q.dir)
      && (!q.status || status.key === q.status) && (!q.term || f.terminal === q.term))
    .map((v) => [col.value(v), v])
    .sort((a, b) => (a[0] < b[0] ? -sign : a[0] > b[0] ? sign : Number(a[1].f.flid) - Number(b[1].f.flid)))
    .map(([, v]) => v);
}

export class BoardView extends Component {
  constructor(props) {
    super(props);
    this.state = { rows: [], total: 0, live: 'connecting', changed: {}, error: null, loaded: false, columns: chosenColumns(),
      from: 0, to: Math.ceil(innerHeight / ROW_PX) + MARGIN_ROWS, rowPx: ROW_PX };
    this.marks = new Map();
    this.body = createRef();
    // per load, not per render: a render while scrolling reuses them
    this.models = lastResult((rows) => rows.map(viewModel));
    this.facts = lastResult(dayFacts);
    this.selected = lastResult((models, query) => filterAndSort(models, Object.fromEntries(new URLSearchParams(query))));
    this.place = this.place.bind(this);
  }
  componentDidMount() {
    this.open();
    addEventListener('scroll', this.place, { passive: true });
    addEventListener('resize', this.place);
    this.place();
  }
  componentDidUpdate(prev) {
    if (prev.day !== this.props.day) this.open();
    if (this.windowed) {
      this.measure();
      this.place();
    }
  }
  componentWillUnmount() {
    if (this.close) this.close();
    for (const t of this.marks.values()) clearTimeout(t);
    removeEventListener('scroll', this.place);
    removeEventListener('resize', this.place);
  }
  /** The height of a rendered row (the blank space above and below the window is that × the rows not rendered). */
  measure() {
    const rows = this.body.current?.querySelectorAll('tr[data-testid]') ?? [];
    if (rows.length < 2) return;
    const first = rows[0];
    const last = rows[rows.length - 1];
    const px = (last.offsetTop + last.offsetHeight - first.offsetTop) / rows.length;
    if (Math.abs(px - this.state.rowPx) > 0.1) this.setState({ rowPx: px });
  }
  /** Which rows are in view (from where the table's body is on screen), with a margin, in steps of WINDOW_STEP. */
  place() {
    const body = this.body.current;
    if (!body) return;
    const top = body.getBoundingClientRect().top; // the first row's top; above the viewport when < 0
    const { rowPx } = this.state;
    const step = (n) => Math.floor(n / WINDOW_STEP) * WINDOW_STEP;
    const from = Math.max(0, step(Math.floor(-top / rowPx) - MARGIN_ROWS));
    const to = step(Math.ceil((innerHeight - top) / rowPx) + MARGIN_ROWS) + WINDOW_STEP;
    if (from !== this.state.from || to !== this.state.to) this.setState({ from, to });
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
  render({ day, onFlight, onDay }, { rows, total, live, changed, error, loaded, columns, from, to, rowPx }) {
    const q = hashQuery();
    const models = this.models(rows);
    // A-CDM columns: only the milestones some flight of the day has (unless chosen explicitly).
    const { setMilestones, terminals, deleted, widths } = this.facts(models);
    const shown = COLUMNS.filter((c) => !c.optional || (columns ? columns.has(c.key) : !c.milestone || setMilestones.has(c.key)));
    const list = this.selected(models, route().query);
    // A long list: the rows in view and a margin, the others blank space of their height; the table
    // tells assistive technology how many rows it has and where each rendered one is (aria-rowcount, aria-rowindex).
    this.windowed = list.length > WINDOW_FROM;
    const first = this.windowed ? Math.min(from, list.length) : 0;
    const end = this.windowed ? Math.min(Math.max(to, first), list.length) : list.length;
    const gap = (key, n) => (n > 0 ? h('tr', { key, class: 'gap', 'aria-hidden': 'true', style: { height: `${n * rowPx}px` } }, h('td', { colSpan: shown.length })) : null);
    const row = (v, i) => h('tr', { key: v.f.flid, 'data-testid': `flight-${v.f.flid}`, 'aria-rowindex': this.windowed ? i + 2 : null,
      class: `${changed[v.f.flid] ? 'changed' : ''} ${v.f.deleted ? 'deleted' : ''}` }, shown.map((c) => h('td', null, c.cell(v, onFlight))));
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
      h('div', { class: 'scroll' }, h('table', { class: 'grid board', 'aria-rowcount': this.windowed ? list.length + 1 : null },
        h('colgroup', null, shown.map((c) => h('col', { key: c.key, style: { width: `${widths[c.key]}ch` } }))),
        h('thead', null, h('tr', { 'aria-rowindex': this.windowed ? 1 : null }, shown.map((c) => h('th', { 'aria-sort': q.sort === c.key || (!q.sort && c.key === 'sched') ? (q.desc === '1' ? 'descending' : 'ascending') : 'none' },
          h('button', { class: 'sort', 'data-testid': `sort-${c.key}`, onClick: () => sortBy(c.key) }, c.label))))),
        h('tbody', { ref: this.body }, gap('above', first), list.slice(first, end).map((v, k) => row(v, first + k)), gap('below', list.length - end)))),
      loaded && list.length === 0 ? h('p', null, rows.length ? 'No flight matches.' : 'No flights on this day.') : null,
    );
  }
}
