// msgx operator console: one page, hash routes, everything read through the read API.
import { Component, h, render } from '/assets/vendor/preact.mjs';
import { gql } from './api.js';
import { AdminBar } from './admin.js';
import { BoardView, FlightView, MessageView, PipelineView, ProblemsView } from './views.js';

const TABS = [['pipeline', 'Pipeline'], ['problems', 'Parked & dead'], ['board', 'Board'], ['message', 'Message'], ['flight', 'Flight']];

function route() {
  const [tab, arg] = location.hash.replace(/^#/, '').split('/');
  return { tab: TABS.some(([t]) => t === tab) ? tab : 'pipeline', arg: arg ? decodeURIComponent(arg) : '' };
}

const today = () => new Date().toISOString().slice(0, 10);

class App extends Component {
  constructor() {
    super();
    this.state = { ...route(), adminOn: false, day: new URLSearchParams(location.search).get('day') || today() };
  }
  componentDidMount() {
    window.addEventListener('hashchange', () => this.setState(route()));
    gql('{ adminEnabled }').then((d) => this.setState({ adminOn: d.adminEnabled }), () => undefined);
  }
  render(_p, { tab, arg, adminOn, day }) {
    const go = (t, a) => (location.hash = a ? `${t}/${encodeURIComponent(a)}` : t);
    const view =
      tab === 'problems' ? h(ProblemsView, { adminOn, onOpen: (id) => go('message', id) })
      : tab === 'board' ? h(BoardView, { day: arg || day, onFlight: (f) => go('flight', f) })
      : tab === 'message' ? h(MessageView, { id: arg })
      : tab === 'flight' ? h(FlightView, { flid: arg })
      : h(PipelineView, null);
    return h(
      'div',
      null,
      h('header', null, h('h1', null, 'msgx console'),
        h('nav', null, TABS.map(([t, label]) => h('a', { href: `#${t}`, class: t === tab ? 'active' : '', 'data-testid': `tab-${t}` }, label)))),
      adminOn ? h(AdminBar, null) : null,
      h('main', null, view),
    );
  }
}

const root = document.getElementById('app');
root.textContent = ''; // the no-script placeholder
render(h(App, null), root);
