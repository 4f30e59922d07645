// Operator actions (shown only when MSGX_ADMIN_TOKEN is set): each button calls /admin/* with the
// token the operator typed in.
import { Component, h } from '/assets/vendor/preact.mjs';
import { admin, adminAuth } from './api.js';

export class AdminBar extends Component {
  constructor(props) {
    super(props);
    this.state = { token: adminAuth.token(), operator: adminAuth.operator(), note: null };
  }
  save(e) {
    e.preventDefault();
    adminAuth.set(this.state.token.trim(), this.state.operator.trim());
    this.setState({ note: 'token kept for this tab' });
  }
  async rebuild() {
    try {
      const r = await admin('rebuild');
      this.setState({ note: `rebuild of flights started by ${r.requestedBy} (progress under Pipeline)` });
    } catch (err) {
      this.setState({ note: `rebuild refused: ${err.message}` });
    }
  }
  async requestPlan() {
    const from = prompt('Plan window from (ISO, airport time if no zone)');
    const to = from && prompt('to');
    if (!from || !to) return;
    try {
      const r = await admin('request-plan', { from, to });
      this.setState({ note: `plan request ${r.mgid} for ${r.window}: ${r.sent ? 'sent' : 'queued'}` });
    } catch (err) {
      this.setState({ note: `request refused: ${err.message}` });
    }
  }
  render(_p, { token, operator, note }) {
    return h(
      'section',
      { class: 'admin', 'data-testid': 'admin' },
      h('form', { class: 'filters', onSubmit: (e) => this.save(e) },
        h('input', { type: 'password', placeholder: 'admin token', value: token, 'data-testid': 'admin-token', onInput: (e) => this.setState({ token: e.target.value }) }),
        h('input', { placeholder: 'your name (audit)', value: operator, 'data-testid': 'admin-operator', onInput: (e) => this.setState({ operator: e.target.value }) }),
        h('button', { 'data-testid': 'admin-save' }, 'Use token')),
      h('button', { 'data-testid': 'rebuild', onClick: () => this.rebuild() }, 'Rebuild flights'),
      h('button', { 'data-testid': 'request-plan', onClick: () => this.requestPlan() }, 'Request plan…'),
      note ? h('span', { class: 'note', 'data-testid': 'admin-note' }, note) : null,
    );
  }
}
