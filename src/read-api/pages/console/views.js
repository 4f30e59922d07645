// The audit trail of one message (#/message/60): what it was, what msgx decided, what it caused.
import { Component, h } from '/assets/vendor/preact.mjs';
import { gql } from './api.js';
import { stamp } from './format.js';
import { cell, table } from './widgets.js';

const MESSAGE = `query($id: ID!) { message(id: $id) { id state errorClass lastError attempts sender type subtype seqn dttm identityKey
  receivedAt ingestedAt rawXml
  decisions { position kind handler recordedAt flids payload changes { type flid data } }
  deliveries { eventId target state attempts sentAt lastError } } }`;

const flidLinks = (flids) => h('td', null, flids.map((f) => h('a', { href: `#/flight/${f}`, class: 'flid' }, f)));
/** A duplicate's reason names the message it duplicates: a link. */
const reason = (text) => {
  const m = /duplicate-of:(\d+)/.exec(text || '');
  return m ? h('span', null, text.slice(0, m.index), 'duplicate of ', h('a', { href: `#/message/${m[1]}` }, `message ${m[1]}`), text.slice(m.index + m[0].length)) : text;
};

export class MessageView extends Component {
  constructor(props) {
    super(props);
    this.state = { typed: props.id || '', msg: undefined, error: null, raw: false };
  }
  componentDidMount() {
    if (this.props.id) this.load();
  }
  componentDidUpdate(prev) {
    if (this.props.id !== prev.id) {
      this.setState({ typed: this.props.id });
      this.load();
    }
  }
  async load() {
    if (!this.props.id) return;
    try {
      const d = await gql(MESSAGE, { id: this.props.id });
      this.setState({ msg: d.message, error: null });
    } catch (err) {
      this.setState({ error: err.message, msg: undefined });
    }
  }
  render({ onMessage }, { typed, msg, error, raw }) {
    return h(
      'section',
      { 'data-testid': 'message' },
      h('h2', null, msg ? `Message ${msg.id}` : 'Message audit trail'),
      h('form', { class: 'filters', onSubmit: (e) => {
        e.preventDefault();
        if (typed.trim()) onMessage(typed.trim());
      } },
        h('input', { 'aria-label': 'CMINMSGS id', placeholder: 'CMINMSGS id', value: typed, 'data-testid': 'message-id', onInput: (e) => this.setState({ typed: e.target.value }) }),
        h('button', null, 'Show')),
      error ? h('p', { class: 'error' }, error) : null,
      msg === null ? h('p', null, 'No such message.') : null,
      msg
        ? h(
            'div',
            null,
            h('p', { 'data-testid': 'message-state' }, h('span', { class: `state st-${msg.state.toLowerCase()}` }, msg.state),
              ` ${msg.sender || '?'} ${msg.type || '?'}/${msg.subtype || '?'} seqn ${msg.seqn || '?'}${msg.errorClass ? ` (${msg.errorClass})` : ''}, ${msg.attempts} attempts, ingested ${stamp(msg.ingestedAt)}`),
            msg.lastError ? h('p', { class: msg.state === 'SKIPPED' ? 'note' : 'error' }, reason(msg.lastError)) : null,
            h('h3', null, 'Decisions'),
            h('label', { class: 'toggle' }, h('input', { type: 'checkbox', checked: raw, 'data-testid': 'raw-toggle', onChange: (e) => this.setState({ raw: e.target.checked }) }), ' show raw JSON'),
            table('grid', ['position', 'kind', 'recorded', 'flights', 'changes'], msg.decisions.map((d) =>
              h('tr', null, cell(d.position), cell(d.kind), cell(stamp(d.recordedAt)), flidLinks(d.flids),
                h('td', { class: 'changes' }, d.changes.length ? d.changes.map((c) => h('div', null, c.type, c.flid ? ' ' : '', c.flid ? h('a', { href: `#/flight/${c.flid}` }, c.flid) : null,
                  raw && c.data ? h('pre', { class: 'json' }, c.data) : null)) : h('pre', { class: 'json' }, d.payload))))),
            h('h3', null, 'Deliveries'),
            table('grid', ['event', 'target', 'state', 'attempts', 'sent', 'error'], msg.deliveries.map((d) => h('tr', null, cell(d.eventId), cell(d.target), cell(d.state), cell(d.attempts), cell(stamp(d.sentAt)), cell(d.lastError)))),
            h('h3', null, 'Raw XML'),
            h('pre', { class: 'xml', 'data-testid': 'raw-xml' }, msg.rawXml || '(withheld)'),
          )
        : null,
    );
  }
}
