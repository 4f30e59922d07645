// Operator actions (shown only when MSGX_ADMIN_TOKEN is set): each button calls /admin/* with the
// token the operator typed in; msgx records each action as a decision naming the operator.
import { Component, h } from '/assets/vendor/preact.mjs';
import { admin, adminAuth } from './api.js';

export class AdminBar extends Component {
  constructor(props) {
    super(props);
    this.state = { token: adminAuth.token(), operator: adminAuth.operator(), from: '', to: '', kinds: '', note: null };
  }
  save(e) {
    e.preventDefault();
    adminAuth.set(this.state.token.trim(), this.state.operator.trim());
    this.setState({ note: 'token kept for this tab' });
  }
  async act(label, action, body, describe) {
    try {
      const r = await admin(action, body);
      this.setState({ note: `${describe(r)} — decision ${r.position} by ${r.requestedBy}` });
    } catch (err) {
      this.setState({ note: `${label} refused: ${err.message}` });
    }
  }
  rebuild() {
    return this.act('rebuild', 'rebuild', {}, () => 'rebuild of flights started (progress under Pipeline)');
  }
  requestPlan(e) {
    e.preventDefault();
    const { from, to } = this.state;
    return this.act('plan request', 'request-plan', { from: from.trim(), to: to.trim() }, (r) =>
      r.shadow ? `plan request for ${r.window} recorded, not sent (shadow)` : `plan request ${r.mgid} for ${r.window}: ${r.sent ? 'sent' : 'registered, the writer retries'}`);
  }
  requestReference(e) {
    e.preventDefault();
    const kinds = this.state.kinds.trim();
    return this.act('reference request', 'request-reference', kinds ? { kinds } : {}, (r) =>
      r.shadow ? `reference request for ${r.kinds.length} kind(s) recorded, not sent (shadow)` : `reference request for ${r.kinds.length} kind(s): ${r.sent} sent`);
  }
  render(_p, { note }) {
    const input = (key, attrs) => h('input', { ...attrs, value: this.state[key], 'data-testid': `admin-${key}`, onInput: (e) => this.setState({ [key]: e.target.value }) });
    return h(
      'section',
      { class: 'admin', 'data-testid': 'admin' },
      h('form', { class: 'filters', onSubmit: (e) => this.save(e) },
        input('token', { type: 'password', placeholder: 'admin token' }),
        input('operator', { placeholder: 'your name (audit)' }),
        h('button', { 'data-testid': 'admin-save' }, 'Use token')),
      h('button', { 'data-testid': 'rebuild', onClick: () => this.rebuild() }, 'Rebuild flights'),
      h('form', { class: 'filters', onSubmit: (e) => this.requestPlan(e) },
        input('from', { placeholder: 'plan from (ISO; airport time if no zone)' }),
        input('to', { placeholder: 'to' }),
        h('button', { 'data-testid': 'request-plan' }, 'Request plan')),
      h('form', { class: 'filters', onSubmit: (e) => this.requestReference(e) },
        input('kinds', { placeholder: 'reference kinds (AIRL,ARPT…; empty = all)' }),
        h('button', { 'data-testid': 'request-reference' }, 'Request reference')),
      note ? h('span', { class: 'note', 'data-testid': 'admin-note' }, note) : null,
    );
  }
}
