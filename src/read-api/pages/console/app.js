// msgx operator console: one page, hash routes (each view a bookmarkable URL, route.js), everything
// read through the read API.
import { Component, h, render } from '/assets/vendor/preact.mjs';
import { gql } from './api.js';
import { AdminBar } from './admin.js';
import { BoardView } from './board.js';
import { FlightView } from './flight.js';
import { MessagesView } from './messages.js';
import { PipelineView } from './pipeline.js';
import { go, hashQuery, route } from './route.js';
import { MessageView } from './views.js';

const TABS = [['pipeline', 'Pipeline'], ['messages', 'Messages'], ['board', 'Board'], ['message', 'Message'], ['flight', 'Flight']];
/** Old routes (#problems, #flight/1) still land somewhere. */
const ALIASES = { problems: 'messages' };

const today = () => new Date().toISOString().slice(0, 10);

class App extends Component {
  constructor() {
    super();
    this.state = { ...route(), adminOn: false, day: new URLSearchParams(location.search).get('day') || null };
  }
  componentDidMount() {
    window.addEventListener('hashchange', () => this.setState(route()));
    gql('{ adminEnabled latestOperationDay }').then(
      (d) => this.setState({ adminOn: d.adminEnabled, day: this.state.day || d.latestOperationDay || today() }),
      () => this.setState({ day: this.state.day || today() }),
    );
  }
  render(_p, { tab: rawTab, arg, query, adminOn, day }) {
    const tab = ALIASES[rawTab] || (TABS.some(([t]) => t === rawTab) ? rawTab : 'pipeline');
    const view =
      tab === 'messages' ? h(MessagesView, { adminOn, query })
      : tab === 'board' ? (arg || day ? h(BoardView, { day: arg || day, onFlight: (f) => go('flight', f), onDay: (d) => go('board', d, query) }) : h('p', null, 'Loading…'))
      : tab === 'message' ? h(MessageView, { id: arg, onMessage: (id) => go('message', id) })
      : tab === 'flight' ? h(FlightView, { flid: arg, asOf: hashQuery().asOf || '', onFlight: (f) => go('flight', f) })
      : h(PipelineView, null);
    return h(
      'div',
      null,
      h('header', null, h('h1', null, 'msgx console'),
        h('nav', { 'aria-label': 'views' }, TABS.map(([t, label]) => h('a', { href: `#/${t}`, class: t === tab ? 'active' : '', 'aria-current': t === tab ? 'page' : null, 'data-testid': `tab-${t}` }, label)))),
      adminOn ? h(AdminBar, null) : null,
      h('main', null, view),
    );
  }
}

const root = document.getElementById('app');
root.textContent = ''; // the no-script placeholder
render(h(App, null), root);
